import rateLimit from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { RateLimitedError } from './app-errors.js'

/** Options of {@link rateLimitPlugin}. */
export interface RateLimitPluginOptions {
  perMinute: number
  /** Counter key prefix in Redis. */
  nameSpace: string
  /** Shares counters between API processes; in-process counters when absent. */
  redis?: Redis
}

/**
 * Limits requests per client IP and minute, answering 429 with `Retry-After`. The limiter is one
 * global `onRequest` hook, so it runs before any route's auth hook (a flood of bad tokens is
 * limited before it is verified) and covers unknown routes too; a route opts out with
 * `config: { rateLimit: false }`.
 */
export const rateLimitPlugin = fp<RateLimitPluginOptions>(
  async (app, options) => {
    await app.register(rateLimit, {
      global: false,
      max: options.perMinute,
      timeWindow: 60_000,
      // A Redis outage must not take the API down with it.
      skipOnError: true,
      nameSpace: options.nameSpace,
      ...(options.redis ? { redis: options.redis } : {}),
      errorResponseBuilder: (_request, context) => new RateLimitedError(context.ttl / 1000),
    })
    const limit = app.rateLimit()
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.rateLimit === false) return
      await limit.call(app, request, reply)
    })
  },
  { name: 'weave-rate-limit' },
)
