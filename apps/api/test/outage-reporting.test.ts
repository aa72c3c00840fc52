import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { createDependencyHealth, type HealthNotice } from '@weave/queue'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { captureLog, testConfig } from './support.js'

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
})

/** A process's dependency health whose probes answer as `reachable` says. */
function healthOf(reachable: { postgres: boolean; redis: boolean }) {
  const notices: HealthNotice[] = []
  const probe = (name: 'postgres' | 'redis') => async () => {
    if (!reachable[name]) throw refused
  }
  const health = createDependencyHealth({
    probes: { postgres: probe('postgres'), redis: probe('redis') },
    notify: (notice) => notices.push(notice),
  })
  return { health, notices }
}

// A route whose query meets a Postgres that is away.
const routes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/rows', async () => {
    throw new Error('query failed', { cause: refused })
  })
}

describe('outages reported by the API to the process health', () => {
  it('answers 503 with Retry-After and logs the outage once, not once per request', async () => {
    const { health, notices } = healthOf({ postgres: false, redis: true })
    const capture = captureLog()
    const app = buildApp({ config: testConfig(), log: capture.log, health, routes: [routes] })
    for (let i = 0; i < 5; i++) {
      const response = await app.inject({ method: 'GET', url: '/v1/rows' })
      expect(response.statusCode).toBe(503)
      expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/)
    }
    await expect.poll(() => notices.length).toBe(1)
    expect(notices[0]).toEqual({ kind: 'down', dependency: 'postgres', reason: 'ECONNREFUSED' })
    const warnings = capture
      .lines()
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 40)
    expect(warnings).toEqual([])
    health.close()
    await app.close()
  })

  it('shows on /readyz, with Retry-After, an outage the connections confirmed before the cache expired', async () => {
    const reachable = { postgres: true, redis: true }
    const { health } = healthOf(reachable)
    const app = buildApp({
      config: testConfig({ WEAVE_READYZ_CACHE_MS: '60000' }),
      log: captureLog().log,
      health,
      checks: { postgres: async () => {}, redis: async () => {} },
    })
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)

    reachable.redis = false
    health.suspect('redis', refused)
    await expect.poll(() => health.isDown('redis')).toBe(true)
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('60')
    expect(response.json()).toMatchObject({
      detail: 'Not reachable: redis.',
      checks: { postgres: 'ok', redis: 'failed' },
    })
    health.close()
    await app.close()
  })
})
