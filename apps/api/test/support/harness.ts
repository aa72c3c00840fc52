import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { GraphRegistry, type Database } from '@weave/db'
import { createJobQueues, redisConnection, type JobQueues } from '@weave/queue'
import { expect } from 'vitest'
import type { z } from 'zod'
import { TEST_REDIS_URL } from '../../../../test/support/service-urls.js'
import { buildApp, type App } from '../../src/app.js'
import { mintDevToken } from '../../src/auth/dev-token.js'
import type { Scope } from '../../src/auth/principal.js'
import { resourceRoutes } from '../../src/routes/index.js'
import { createApiServices, type ApiServices } from '../../src/services/api-services.js'
import { SECRET, captureLog, testConfig } from '../support.js'
import { createTestDatabase, type TestDatabase } from './database.js'
import { obliterateQueues } from '../../../../test/support/queue-cleanup.js'

/** Every scope a token can carry. */
export const ALL_SCOPES: readonly Scope[] = [
  'graphs:read',
  'graphs:write',
  'runs:read',
  'runs:write',
  'approvals:read',
  'approvals:decide',
  'approvals:link',
  'audit:read',
  'audit:anchor',
  'webhooks:manage',
]

/** What one request sends. */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  url: string
  token?: string
  body?: unknown
  headers?: Record<string, string>
}

/** The API over a real database and a real queue (no worker), owned by one test file. */
export interface Harness {
  app: App
  database: Database
  queues: JobQueues
  registry: GraphRegistry
  services: ApiServices
  /** A token for `tenant` as `subject` with `scopes` (all by default). */
  token(tenant: string, subject: string, scopes?: readonly Scope[]): Promise<string>
  call(call: Call): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

/** The API with every resource route over `services`, quiet and without rate limits. */
export async function buildTestApp(services: ApiServices): Promise<App> {
  const app = buildApp({
    config: testConfig({ LOG_LEVEL: 'warn', WEAVE_RATE_LIMIT_PER_MINUTE: '0' }),
    log: captureLog().log,
    services,
    routes: resourceRoutes,
  })
  await app.ready()
  return app
}

/** Sends a {@link Call} to `app` through inject, with the token as a bearer header. */
export function callerFor(app: App): (call: Call) => Promise<LightMyRequestResponse> {
  return ({ method, url, token, body, headers }) =>
    app.inject({
      method,
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    })
}

/** Builds the API over a fresh database and a queue prefix of its own. */
export async function createHarness(prefix: string): Promise<Harness> {
  const db: TestDatabase = await createTestDatabase(prefix)
  const queues = createJobQueues({
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `weave-test-${randomBytes(6).toString('hex')}`,
  })
  const registry = new GraphRegistry(db.database)
  const services = createApiServices({ database: db.database, jobs: queues, registry })
  const app = await buildTestApp(services)
  return {
    app,
    database: db.database,
    queues,
    registry,
    services,
    token: (tenant, subject, scopes = ALL_SCOPES) =>
      mintDevToken({ secret: SECRET, tenant, subject, scopes, audience: 'weave', expiresIn: 600 }),
    call: callerFor(app),
    close: async () => {
      await app.close()
      await obliterateQueues(queues)
      await queues.close()
      await db.drop()
    },
  }
}

/**
 * Asserts a JSON answer with `status` whose body matches `schema` (the route's response schema,
 * which gives the body its type) and returns the body as sent, unknown fields included.
 */
export function expectJson<S extends z.ZodType = z.ZodType<Record<string, unknown>>>(
  response: LightMyRequestResponse,
  status: number,
  schema?: S,
): z.output<S> {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  const body: unknown = response.json()
  if (!schema) return body as z.output<S>
  const parsed = schema.safeParse(body)
  expect(parsed.error?.issues ?? [], response.body).toEqual([])
  return body as z.output<S>
}

/** Asserts a problem answer with `status` (and problem `type`) and returns its body. */
export function expectProblem(
  response: LightMyRequestResponse,
  status: number,
  type?: string,
): {
  type: string
  title: string
  status: number
  detail: string
  errors?: { path: string; message: string }[]
} {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/)
  const body = response.json()
  expect(body.status).toBe(status)
  if (type !== undefined) expect(body.type).toBe(`/problems/${type}`)
  return body
}
