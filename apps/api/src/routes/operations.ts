import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Dependency, DependencyHealth } from '@weave/queue'
import type { Registry } from 'prom-client'
import { z } from 'zod'
import { createCachedReadiness, type ReadinessChecks } from '../dependency-checks.js'
import { ServiceUnavailableError } from '../http/app-errors.js'
import { hasMetricsToken, metricsUnauthorized } from '../http/metrics-access.js'
import { sortOpenApiDocument } from '../http/openapi.js'
import { problemExampleBody, problemResponses } from '../http/problem-responses.js'
import { Problem } from '../schemas/problem.js'

/** Options of {@link operationsRoutes}. */
export interface OperationsRoutesOptions {
  checks: ReadinessChecks
  /** Where a failed check reports its dependency, which logs the outage once; absent: a line each. */
  health?: DependencyHealth | undefined
  /** The registry `/metrics` reads; no `/metrics` route when absent (off, or on its own port). */
  registry?: Registry | undefined
  /** When set, `/metrics` needs `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string | undefined
  /** Whether `/openapi.json` is served (WEAVE_DOCS). */
  isDocsServed?: boolean
  checkTimeoutMs?: number
  /** How long a `/readyz` answer is reused. */
  readinessCacheMs?: number
  now?: () => number
}

const CheckStatus = z.enum(['ok', 'failed'])
const Health = z.object({ status: z.literal('ok') }).meta({ id: 'Health' })
const Readiness = z
  .object({ status: z.literal('ok'), checks: z.record(z.string(), CheckStatus) })
  .meta({ id: 'Readiness', examples: [{ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } }] })
const NotReady = Problem.extend({ checks: z.record(z.string(), CheckStatus) }).meta({
  id: 'NotReadyProblem',
  examples: [
    {
      type: '/problems/not-ready',
      title: 'Not ready',
      status: 503,
      detail: 'Not reachable: postgres.',
      instance: '/readyz',
      checks: { postgres: 'failed', redis: 'ok' },
    },
  ],
})

// Probes and scrapers poll these routes: no auth, no rate limit, request logs only at warn.
const UNGUARDED = { logLevel: 'warn', config: { rateLimit: false } } as const

/**
 * `/healthz`, `/readyz`, `/metrics` and `/openapi.json`, without a JWT. `/readyz` answers from a
 * cache (one check run per `readinessCacheMs`) and is rate-limited per client IP; `/metrics` may
 * need its own token.
 */
export const operationsRoutes: FastifyPluginAsyncZod<OperationsRoutesOptions> = async (
  app,
  {
    checks,
    health,
    registry,
    metricsToken,
    isDocsServed = true,
    checkTimeoutMs = 2_000,
    ...options
  },
) => {
  const readinessCacheMs = options.readinessCacheMs ?? 2_000
  const readiness = createCachedReadiness(checks, {
    timeoutMs: checkTimeoutMs,
    cacheMs: readinessCacheMs,
    ...(options.now ? { now: options.now } : {}),
  })

  app.get(
    '/healthz',
    {
      ...UNGUARDED,
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness: the process is up',
        description:
          'Answers 200 while the process serves requests, whatever the state of Postgres and ' +
          'Redis (that is `/readyz`): a liveness probe restarts only a process that is stuck.',
        tags: ['operations'],
        security: [],
        response: { 200: Health, ...problemResponses(500) },
      },
    },
    async () => ({ status: 'ok' as const }),
  )

  app.get(
    '/readyz',
    {
      // Answered from a cache, and limited per client IP like any request without a token: a
      // flood can neither reach Postgres and Redis nor keep the API busy answering it.
      logLevel: 'warn',
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: Postgres and Redis are reachable',
        description:
          'Checks Postgres and Redis (answers are reused for a short while, so probes cannot ' +
          'load them) and names each one that is down: a load balancer sends no traffic to an ' +
          'instance that answers 503.',
        tags: ['operations'],
        security: [],
        response: {
          200: Readiness,
          ...problemResponses(429),
          503: {
            description: 'A dependency is unreachable; `checks` says which',
            headers: {
              'Retry-After': {
                description: 'Seconds until the checks run again',
                type: 'integer',
                examples: [2],
              },
            },
            content: {
              'application/problem+json': {
                schema: NotReady,
                examples: {
                  'not-ready': {
                    summary: 'Postgres is unreachable',
                    value: {
                      checks: { postgres: 'failed', redis: 'ok' },
                      ...problemExampleBody({
                        problem: 'not-ready',
                        detail: 'Not reachable: postgres.',
                      }),
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    async (request) => {
      const answer = readiness()
      const results = await answer.results
      const failed = Object.entries(results).filter(([, result]) => result instanceof Error)
      // Once per check run, not once per cached answer.
      if (answer.isFresh) {
        for (const [name, err] of failed) {
          if (health && isDependency(name)) health.suspect(name, err)
          else request.log.warn({ check: name, err }, 'dependency check failed')
        }
      }
      // An outage the process's connections already confirmed shows at once, not only when the
      // cached answer expires.
      const isFailed = (name: string) =>
        results[name] !== undefined || (isDependency(name) && health?.isDown(name) === true)
      const statuses = Object.fromEntries(
        Object.keys(results).map((name) => [name, isFailed(name) ? 'failed' : 'ok'] as const),
      )
      const failedNames = Object.keys(results).filter(isFailed)
      if (failedNames.length > 0) {
        const names = failedNames.join(', ')
        throw new ServiceUnavailableError(`Not reachable: ${names}.`, {
          problem: 'not-ready',
          // No sooner than the checks run again.
          retryAfterSeconds: readinessCacheMs / 1000,
          extensions: { checks: statuses },
        })
      }
      return { status: 'ok' as const, checks: statuses }
    },
  )

  if (registry) {
    const metrics = registry
    app.get(
      '/metrics',
      {
        ...UNGUARDED,
        ...(metricsToken === undefined ? {} : { onRequest: requireMetricsToken(metricsToken) }),
        schema: {
          operationId: 'getMetrics',
          summary: 'Prometheus metrics (text exposition format)',
          description:
            'Needs `Authorization: Bearer <WEAVE_METRICS_TOKEN>` when that token is configured ' +
            '(not a JWT). Absent when metrics are off or served on WEAVE_API_METRICS_PORT.',
          tags: ['operations'],
          security: [],
          response: {
            200: {
              description: 'Metrics in the Prometheus text format',
              content: { 'text/plain': { schema: z.string() } },
            },
            ...problemResponses(401),
          },
        },
      },
      async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()),
    )
  }

  if (!isDocsServed) return
  app.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        description:
          'The description of every operation, webhook and schema of this server, as committed ' +
          'at openapi/openapi.json. The graph spec schema is also served on its own at ' +
          '`/schemas/graph-spec.json`.',
        tags: ['operations'],
        security: [],
        response: { 200: z.record(z.string(), z.unknown()), ...problemResponses(429) },
      },
    },
    async () => sortOpenApiDocument(app.swagger()),
  )
}

function isDependency(name: string): name is Dependency {
  return name === 'postgres' || name === 'redis'
}

function requireMetricsToken(token: string) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization
    if (!hasMetricsToken(header, token)) throw metricsUnauthorized(header)
  }
}
