import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Registry } from 'prom-client'
import { z } from 'zod'
import type { ReadinessChecks } from '../dependency-checks.js'
import { ServiceUnavailableError } from '../http/app-errors.js'
import { sortOpenApiDocument } from '../http/openapi.js'
import { problemResponses } from '../http/problem-responses.js'
import { Problem } from '../schemas/problem.js'

/** Options of {@link operationsRoutes}. */
export interface OperationsRoutesOptions {
  checks: ReadinessChecks
  registry: Registry
  checkTimeoutMs?: number
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

/** `/healthz`, `/readyz`, `/metrics` and `/openapi.json`: no authentication. */
export const operationsRoutes: FastifyPluginAsyncZod<OperationsRoutesOptions> = async (
  app,
  { checks, registry, checkTimeoutMs = 2_000 },
) => {
  app.get(
    '/healthz',
    {
      ...UNGUARDED,
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness: the process is up',
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
      ...UNGUARDED,
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: Postgres and Redis are reachable',
        tags: ['operations'],
        security: [],
        response: {
          200: Readiness,
          503: {
            description: 'A dependency is unreachable',
            content: { 'application/problem+json': { schema: NotReady } },
          },
        },
      },
    },
    async (request) => {
      const results = await runChecks(checks, checkTimeoutMs)
      const failed = Object.entries(results).filter(([, result]) => result instanceof Error)
      for (const [name, err] of failed)
        request.log.warn({ check: name, err }, 'dependency check failed')
      const statuses = Object.fromEntries(
        Object.entries(results).map(([name, result]) => [name, result ? 'failed' : 'ok'] as const),
      )
      if (failed.length > 0) {
        const names = failed.map(([name]) => name).join(', ')
        throw new ServiceUnavailableError(`Not reachable: ${names}.`, {
          problem: 'not-ready',
          extensions: { checks: statuses },
        })
      }
      return { status: 'ok' as const, checks: statuses }
    },
  )

  app.get(
    '/metrics',
    {
      ...UNGUARDED,
      schema: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        security: [],
        response: {
          200: {
            description: 'Metrics in the Prometheus text format',
            content: { 'text/plain': { schema: z.string() } },
          },
        },
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  )

  app.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        tags: ['operations'],
        security: [],
        response: { 200: z.record(z.string(), z.unknown()), ...problemResponses(429) },
      },
    },
    async () => sortOpenApiDocument(app.swagger()),
  )
}

async function runChecks(
  checks: ReadinessChecks,
  timeoutMs: number,
): Promise<Record<string, Error | undefined>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), timeoutMs)
        return [name, undefined] as const
      } catch (error) {
        return [name, error instanceof Error ? error : new Error(String(error))] as const
      }
    }),
  )
  return Object.fromEntries(entries)
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  try {
    await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
