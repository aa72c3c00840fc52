import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import { buildApp, type App, type RoutePlugin } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { createJwtVerifier, type JwtVerifier } from '../src/auth/jwt-verifier.js'
import { createRateLimitRedis } from '../src/http/rate-limit-redis.js'
import { SECRET, captureLog, testConfig } from './support.js'

const PREFIX = `rl-${randomBytes(5).toString('hex')}`
const config = testConfig({ WEAVE_RATE_LIMIT_PER_MINUTE: '3', WEAVE_QUEUE_PREFIX: PREFIX })

const probe: RoutePlugin<object> = async (app) => {
  app.get('/v1/probe', { onRequest: app.requireScope('runs:read') }, async (request) => ({
    tenant: request.tenant,
  }))
}

let redis: Redis
let verifications = 0
const apps: App[] = []

/** An API process of its own, sharing the Redis counters with the others. */
async function apiProcess(): Promise<App> {
  const real = createJwtVerifier(config.jwt)
  const verifier: JwtVerifier = {
    verify: (token) => {
      verifications += 1
      return real.verify(token)
    },
  }
  const app = buildApp({
    config,
    log: captureLog().log,
    verifier,
    routes: [probe],
    rateLimitRedis: redis,
  })
  await app.ready()
  apps.push(app)
  return app
}

function token(tenant: string, subject = 'reader', secret = SECRET): Promise<string> {
  return mintDevToken({
    secret,
    tenant,
    subject,
    scopes: ['runs:read'],
    audience: 'weave',
    expiresIn: 600,
  })
}

function call(app: App, ip: string, bearer?: string) {
  return app.inject({
    method: 'GET',
    url: '/v1/probe',
    remoteAddress: ip,
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  })
}

beforeAll(() => {
  redis = createRateLimitRedis(TEST_REDIS_URL)
})

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()))
  const keys = await redis.keys(`${PREFIX}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
})

describe('per-tenant rate limits', () => {
  it("counts a tenant's requests across API processes and callers, then answers 429", async () => {
    const [first, second] = [await apiProcess(), await apiProcess()]
    const tenant = `acme-${randomBytes(3).toString('hex')}`
    const [alice, bob] = [await token(tenant, 'alice'), await token(tenant, 'bob')]
    expect((await call(first, '10.0.0.1', alice)).statusCode).toBe(200)
    expect((await call(second, '10.0.0.2', bob)).statusCode).toBe(200)
    expect((await call(first, '10.0.0.3', bob)).statusCode).toBe(200)
    const limited = await call(second, '10.0.0.4', alice)
    expect(limited.statusCode).toBe(429)
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(limited.json()).toMatchObject({ type: '/problems/rate-limited', status: 429 })

    // Another tenant on the same IPs has its own budget.
    const other = await token(`globex-${randomBytes(3).toString('hex')}`)
    expect((await call(first, '10.0.0.1', other)).statusCode).toBe(200)
  })

  it('limits a forged token by its IP, never against the tenant it names', async () => {
    const app = await apiProcess()
    const tenant = `victim-${randomBytes(3).toString('hex')}`
    const forged = await token(tenant, 'mallory', 'a-different-secret-of-at-least-32-bytes!')
    for (let i = 0; i < 3; i++) expect((await call(app, '10.9.9.9', forged)).statusCode).toBe(401)
    expect((await call(app, '10.9.9.9', forged)).statusCode).toBe(429)
    // The tenant it named still has its whole budget.
    const real = await token(tenant)
    for (let i = 0; i < 3; i++) expect((await call(app, '10.1.1.1', real)).statusCode).toBe(200)
  })

  it('limits callers without a token per IP', async () => {
    const app = await apiProcess()
    for (let i = 0; i < 3; i++) expect((await call(app, '10.7.7.7')).statusCode).toBe(401)
    expect((await call(app, '10.7.7.7')).statusCode).toBe(429)
    expect((await call(app, '10.7.7.8')).statusCode).toBe(401)
  })

  it('verifies a token once per request although both the limiter and the route need it', async () => {
    const app = await apiProcess()
    const bearer = await token(`once-${randomBytes(3).toString('hex')}`)
    const before = verifications
    expect((await call(app, '10.3.3.3', bearer)).statusCode).toBe(200)
    expect(verifications - before).toBe(1)
  })
})
