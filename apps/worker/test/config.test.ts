import { describe, expect, it } from 'vitest'
import { WorkerConfigError, jobWaitSeconds, loadWorkerConfig } from '../src/index.js'

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
