import { describe, expect, it } from 'vitest'
import { WorkerConfigError, loadWorkerConfig } from '../src/config.js'
import { jobWaitSeconds } from '../src/metrics.js'

describe('worker configuration', () => {
  it('defaults the reconciler quiet period and serves no metrics', () => {
    const config = loadWorkerConfig({})
    expect(config.reconcileQuietMs).toBe(10_000)
    expect(config.metrics).toBeUndefined()
  })

  it('reads the quiet period and the metrics port', () => {
    const config = loadWorkerConfig({
      WEAVE_RECONCILE_QUIET_MS: '1000',
      WEAVE_METRICS_PORT: '9464',
      WEAVE_METRICS_HOST: '127.0.0.1',
    })
    expect(config).toMatchObject({
      reconcileQuietMs: 1000,
      metrics: { port: 9464, host: '127.0.0.1' },
    })
  })

  it('refuses a quiet period too short to renew leases within and a port out of range', () => {
    expect(() => loadWorkerConfig({ WEAVE_RECONCILE_QUIET_MS: '10' })).toThrow(WorkerConfigError)
    expect(() => loadWorkerConfig({ WEAVE_METRICS_PORT: '70000' })).toThrow(/WEAVE_METRICS_PORT/)
  })

  it('reads the state size limit, the ceilings on graph limits and the shutdown grace', () => {
    expect(loadWorkerConfig({})).toMatchObject({
      maxStateBytes: 4 * 1024 * 1024,
      maxima: {},
      shutdownGraceMs: 25_000,
    })
    const config = loadWorkerConfig({
      WEAVE_MAX_STATE_BYTES: '65536',
      WEAVE_MAX_ITERATIONS: '50',
      WEAVE_MAX_STEP_BUDGET: '200',
      WEAVE_SHUTDOWN_GRACE_MS: '0',
    })
    expect(config).toMatchObject({
      maxStateBytes: 65_536,
      maxima: { maxIterations: 50, stepBudget: 200 },
      shutdownGraceMs: 0,
    })
    expect(() => loadWorkerConfig({ WEAVE_MAX_STEP_BUDGET: '0' })).toThrow(/WEAVE_MAX_STEP_BUDGET/)
    expect(() => loadWorkerConfig({ WEAVE_MAX_STATE_BYTES: 'big' })).toThrow(
      /WEAVE_MAX_STATE_BYTES/,
    )
  })
})

describe('the retention interval', () => {
  it('applies retention every 10 minutes by default, at the interval given, or never with 0', () => {
    expect(loadWorkerConfig({}).retentionIntervalMs).toBe(600_000)
    expect(loadWorkerConfig({ WEAVE_RETENTION_INTERVAL_MS: '60000' }).retentionIntervalMs).toBe(
      60_000,
    )
    expect(loadWorkerConfig({ WEAVE_RETENTION_INTERVAL_MS: '0' }).retentionIntervalMs).toBe(0)
    expect(() => loadWorkerConfig({ WEAVE_RETENTION_INTERVAL_MS: '-1' })).toThrow(
      /WEAVE_RETENTION_INTERVAL_MS/,
    )
  })
})

describe('the database URLs', () => {
  it('run as weave_runtime and migrate as postgres on the local weave database by default', () => {
    expect(loadWorkerConfig({})).toMatchObject({
      databaseUrl: 'postgres://weave_runtime@127.0.0.1:5432/weave',
      migrateDatabaseUrl: 'postgres://postgres@127.0.0.1:5432/weave',
      isProduction: false,
    })
  })

  it('read WEAVE_DATABASE_URL and WEAVE_MIGRATE_DATABASE_URL, and a legacy DATABASE_URL as both', () => {
    const runtime = 'postgres://weave_api:pw@db.internal/orders'
    const migrate = 'postgres://owner:pw@db.internal/orders'
    expect(
      loadWorkerConfig({ WEAVE_DATABASE_URL: runtime, WEAVE_MIGRATE_DATABASE_URL: migrate }),
    ).toMatchObject({ databaseUrl: runtime, migrateDatabaseUrl: migrate })
    const legacy = 'postgres://postgres@127.0.0.1:5432/weave_e2e'
    expect(loadWorkerConfig({ DATABASE_URL: legacy })).toMatchObject({
      databaseUrl: legacy,
      migrateDatabaseUrl: legacy,
    })
    expect(() => loadWorkerConfig({ WEAVE_DATABASE_URL: 'mysql://db' })).toThrow(
      /WEAVE_DATABASE_URL/,
    )
  })
})

describe('queue wait', () => {
  it('is the time from due (added plus delay) to taken, and unknown for a retried job', () => {
    expect(jobWaitSeconds({ timestamp: 1_000, delay: 500, processedOn: 2_000 })).toBe(0.5)
    expect(jobWaitSeconds({ timestamp: 1_000, processedOn: 900 })).toBe(0)
    expect(jobWaitSeconds({ timestamp: 1_000 })).toBeUndefined()
    expect(
      jobWaitSeconds({ timestamp: 1_000, processedOn: 9_000, attemptsStarted: 2 }),
    ).toBeUndefined()
  })
})
