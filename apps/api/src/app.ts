import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawServerDefault,
} from 'fastify'
import {
  serializerCompiler,
  type FastifyPluginAsyncZod,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import type { Tracer } from '@opentelemetry/api'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DependencyHealth } from '@weave/queue'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { Registry } from 'prom-client'
import { authPlugin } from './auth/auth-plugin.js'
import { createJwtVerifier, type JwtVerifier } from './auth/jwt-verifier.js'
import type { Config } from './config.js'
import type { ReadinessChecks } from './dependency-checks.js'
import {
  clientErrorHandler,
  errorHandlerPlugin,
  frameworkErrorHandler,
} from './http/error-handler.js'
import { lingeringClosePlugin } from './http/lingering-close.js'
import { metricsListenerPlugin } from './http/metrics-listener.js'
import { metricsPlugin } from './http/metrics.js'
import { openApiPlugin } from './http/openapi.js'
import { rateLimitPlugin } from './http/rate-limit.js'
import { requestIdOf } from './http/request-id.js'
import { securityHeadersPlugin } from './http/security-headers.js'
import { tracingPlugin } from './http/tracing.js'
import { fastifyTrustProxy } from './http/trust-proxy.js'
import { zodValidatorCompiler } from './http/validation.js'
import { createLogger } from './logger.js'
import { operationsRoutes } from './routes/operations.js'

/** The Fastify instance Weave routes are written against (zod type provider). */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>

/** A resource route plugin; it receives the app's `services` as its options. */
export type RoutePlugin<S extends object> = FastifyPluginAsyncZod<S>

/** Everything {@link buildApp} needs; only `config` is required. */
export interface AppDeps<S extends object> {
  config: Config
  /** The process logger (see createLogger); one is made from `config.logLevel` when absent. */
  log?: Logger
  /** Token verification; built from `config.jwt` when absent. */
  verifier?: JwtVerifier
  /** The services route plugins receive as their options. */
  services?: S
  /** Readiness checks run by `/readyz`, by dependency name. */
  checks?: ReadinessChecks
  /**
   * Where requests failed by an outage, and failed readiness checks, report it: the outage is
   * then logged once per state change rather than once per request. Absent: one line each.
   */
  health?: DependencyHealth
  /** How long `/readyz` waits for each check; 2 s by default. */
  checkTimeoutMs?: number
  /** The clock of `/readyz`'s cache (milliseconds); `Date.now` unless a test drives it. */
  now?: () => number
  /** Resource route plugins, registered after the framework plugins. */
  routes?: readonly RoutePlugin<S>[]
  /** Where HTTP metrics are recorded and `/metrics` reads; a fresh registry when absent. */
  metrics?: Registry
  /**
   * Shares rate-limit counters (per tenant, per IP without a valid token) between API processes;
   * in-process counters when absent. See createRateLimitRedis.
   */
  rateLimitRedis?: Redis
  /**
   * Traces requests (a server span each, continuing a caller's `traceparent`) when given; absent,
   * the API registers no tracing hooks at all.
   */
  tracer?: Tracer
}

/**
 * Builds the API: request ids, logging, zod validation, problem details, security headers, auth,
 * rate limit, OpenAPI and Swagger UI, the operations routes and the given resource routes. It
 * connects to nothing; plugins load on `ready()` or `listen()`, and a separate metrics port
 * (WEAVE_API_METRICS_PORT) listens from `ready()` on.
 */
export function buildApp<S extends object = Record<never, never>>(deps: AppDeps<S>): App {
  const { config } = deps
  const renderOptions = { bodyLimitBytes: config.bodyLimitBytes }
  const logger: FastifyBaseLogger = deps.log ?? createLogger({ level: config.logLevel })
  const app = Fastify({
    loggerInstance: logger,
    // The caller's X-Request-Id is validated in requestIdOf; Fastify's requestIdHeader would
    // accept any value, so it stays off.
    genReqId: requestIdOf,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: config.bodyLimitBytes,
    // request.ip (rate limits per IP, the audit log's ip) is the client's only behind trusted proxies.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    frameworkErrors: frameworkErrorHandler(renderOptions),
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>()

  app.setValidatorCompiler(zodValidatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  // JSON only: without this a text/plain body would reach validation instead of answering 415.
  app.removeContentTypeParser('text/plain')
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  // First among the plugins: every later hook and the handler run inside the request's span.
  if (deps.tracer) void app.register(tracingPlugin, { tracer: deps.tracer })

  void app.register(errorHandlerPlugin, { ...renderOptions, health: deps.health })
  void app.register(lingeringClosePlugin)
  void app.register(securityHeadersPlugin)
  const registry = deps.metrics ?? new Registry()
  void app.register(metricsPlugin, { registry })
  const exposure = config.metrics.exposure
  void app.register(metricsListenerPlugin, {
    registry,
    listen: exposure.kind === 'port' ? { port: exposure.port, host: exposure.host } : undefined,
    token: config.metrics.token,
  })
  if (config.rateLimitPerMinute > 0) {
    void app.register(rateLimitPlugin, {
      perMinute: config.rateLimitPerMinute,
      nameSpace: `${config.queuePrefix}:rate-limit:`,
      ...(deps.rateLimitRedis ? { redis: deps.rateLimitRedis } : {}),
      tenantOf: (request) => app.verifiedTenant(request),
    })
  }
  void app.register(openApiPlugin, { isDocsServed: config.docs })
  const verifier = deps.verifier ?? createJwtVerifier(config.jwt, { log: logger })
  void app.register(authPlugin, { verifier })
  void app.register(operationsRoutes, {
    checks: deps.checks ?? {},
    health: deps.health,
    registry: exposure.kind === 'main' ? registry : undefined,
    metricsToken: config.metrics.token,
    isDocsServed: config.docs,
    readinessCacheMs: config.readinessCacheMs,
    ...(deps.checkTimeoutMs === undefined ? {} : { checkTimeoutMs: deps.checkTimeoutMs }),
    ...(deps.now ? { now: deps.now } : {}),
  })
  for (const route of deps.routes ?? []) {
    void app.register(route, deps.services ?? ({} as S))
  }
  return app
}
