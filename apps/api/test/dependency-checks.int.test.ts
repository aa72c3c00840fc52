import { afterEach, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import { buildApp } from '../src/app.js'
import { createDependencyChecks, type DependencyChecks } from '../src/dependency-checks.js'
import { captureLog, testConfig } from './support.js'

const databaseUrl = TEST_DATABASE_URL
const redisUrl = TEST_REDIS_URL

const opened: DependencyChecks[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((checks) => checks.close()))
})

function open(options: { databaseUrl: string; redisUrl: string }): DependencyChecks {
  const checks = createDependencyChecks(options)
  opened.push(checks)
  return checks
}

describe('dependency checks', () => {
  it('pass against the real Postgres and Redis, and /readyz says so', async () => {
    const { checks } = open({ databaseUrl, redisUrl })
    await expect(checks.postgres()).resolves.toBeUndefined()
    await expect(checks.redis()).resolves.toBeUndefined()
    const app = buildApp({ config: testConfig(), log: captureLog().log, checks })
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } })
    await app.close()
  })

  it('fail when nothing listens, and /readyz answers 503', async () => {
    const { checks } = open({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/weave',
      redisUrl: 'redis://127.0.0.1:1',
    })
    await expect(checks.postgres()).rejects.toThrow()
    await expect(checks.redis()).rejects.toThrow()
    const app = buildApp({ config: testConfig(), log: captureLog().log, checks })
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(response.json().checks).toEqual({ postgres: 'failed', redis: 'failed' })
    await app.close()
  })
})
