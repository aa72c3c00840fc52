import rateLimit from '@fastify/rate-limit'
import type { FastifyRequest } from 'fastify'
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
  /**
   * The tenant of the request's bearer token, only when the token verifies (see
   * `app.verifiedTenant`); requests without one are limited per client IP.
   */
  tenantOf?: (request: FastifyRequest) => Promise<string | undefined>
}

/**
 * Limits requests per tenant and minute (per client IP without a valid token), answering 429 with
 * `Retry-After` as problem details. The limiter is one global `onRequest` hook, so it runs before
 * any route's auth hook and covers unknown routes too; a route opts out with
 * `config: { rateLimit: false }`.
 *
 * The tenant key comes from a verified token, never from a decoded one: a forged or expired
 * token cannot spend another tenant's budget, it falls back to its IP's. The verification is
 * cached on the request and reused by the route's auth hook, so no token is verified twice; a
 * flood of bad tokens costs one verification each and is limited per IP.
 */
export const rateLimitPlugin = fp<RateLimitPluginOptions>(
  async (app, options) => {
    const tenantOf = options.tenantOf ?? (async () => undefined)
    await app.register(rateLimit, {
      global: false,
      max: options.perMinute,
      timeWindow: 60_000,
      // A Redis outage must not take the API down with it.
      skipOnError: true,
      nameSpace: options.nameSpace,
      ...(options.redis ? { redis: options.redis } : {}),
      keyGenerator: async (request) => {
        const tenant = await tenantOf(request)
        return tenant === undefined ? `ip:${request.ip}` : `tenant:${tenant}`
      },
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
