import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { Problem } from '../src/schemas/problem.js'
import { captureLog, testConfig } from './support.js'

function appWith(checks: Record<string, () => Promise<void>>, checkLog = captureLog()) {
  return buildApp({ config: testConfig(), log: checkLog.log, checks })
}

describe('health and readiness', () => {
  it('answers /healthz with 200 and no token', async () => {
    const response = await appWith({}).inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
  })

  it('answers /readyz with 200 when every check passes', async () => {
    const app = appWith({ postgres: async () => {}, redis: async () => {} })
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } })
  })

  it('answers /readyz with a 503 problem naming the failed dependency', async () => {
    const capture = captureLog()
    const app = appWith(
      {
        postgres: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
        },
        redis: async () => {},
      },
      capture,
    )
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    const body = response.json()
    expect(Problem.parse(body)).toMatchObject({ type: '/problems/not-ready', status: 503 })
    expect(body.detail).toBe('Not reachable: postgres.')
    expect(body.checks).toEqual({ postgres: 'failed', redis: 'ok' })
    expect(response.body).not.toContain('ECONNREFUSED')
    const warnings = capture.lines().filter((line) => line.includes('dependency check failed'))
    expect(warnings).toHaveLength(1)
  })

  it('reports a check that does not answer in time as failed', async () => {
    const app = buildApp({
      config: testConfig(),
      log: captureLog().log,
      checks: { redis: () => new Promise<void>(() => {}) },
      checkTimeoutMs: 50,
    })
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(response.json().checks).toEqual({ redis: 'failed' })
  })

  it('serves Prometheus metrics including HTTP request durations', async () => {
    const app = appWith({})
    await app.inject({ method: 'GET', url: '/healthz' })
    const response = await app.inject({ method: 'GET', url: '/metrics' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toContain('text/plain')
    expect(response.body).toContain(
      'weave_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 1',
    )
  })

  it('runs the /readyz checks at most once per cache window however often it is asked', async () => {
    let now = Date.now()
    let runs = 0
    let isRedisUp = true
    const app = buildApp({
      config: testConfig({ WEAVE_READYZ_CACHE_MS: '2000' }),
      log: captureLog().log,
      now: () => now,
      checks: {
        postgres: async () => {
          runs += 1
        },
        redis: async () => {
          if (!isRedisUp) throw new Error('redis away')
        },
      },
    })
    const ask = () => app.inject({ method: 'GET', url: '/readyz' })
    const answers = await Promise.all(Array.from({ length: 25 }, ask))
    for (let i = 0; i < 25; i++) answers.push(await ask())
    expect(answers.every((answer) => answer.statusCode === 200)).toBe(true)
    expect(runs).toBe(1)

    // A failure is cached too, and seen by the next window's check.
    isRedisUp = false
    expect((await ask()).statusCode).toBe(200)
    now += 2_000
    expect((await ask()).statusCode).toBe(503)
    expect((await ask()).statusCode).toBe(503)
    expect(runs).toBe(2)
  })

  it('limits /readyz per client IP, answering 429 with Retry-After beyond the limit', async () => {
    let runs = 0
    const app = buildApp({
      config: testConfig({ WEAVE_RATE_LIMIT_PER_MINUTE: '5' }),
      log: captureLog().log,
      checks: {
        postgres: async () => {
          runs += 1
        },
      },
    })
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) {
      statuses.push((await app.inject({ method: 'GET', url: '/readyz' })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429])
    const limited = await app.inject({ method: 'GET', url: '/readyz' })
    expect(limited.headers['retry-after']).toMatch(/^\d+$/)
    expect(Problem.parse(limited.json())).toMatchObject({ status: 429 })
    // Another client is not held back, and /healthz stays unlimited for probes.
    const other = await app.inject({ method: 'GET', url: '/readyz', remoteAddress: '10.0.0.9' })
    expect(other.statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)
    expect(runs).toBe(1)
  })
})
