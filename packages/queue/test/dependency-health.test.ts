import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createDependencyHealth,
  describeHealthNotice,
  type HealthNotice,
} from '../src/dependency-health.js'

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
  code: 'ECONNREFUSED',
})

/** A health whose probes answer as `reachable` says, on a clock the test moves. */
function harness() {
  const reachable = { postgres: true, redis: true }
  const notices: HealthNotice[] = []
  let clock = 0
  const probe = (name: 'postgres' | 'redis') => async () => {
    if (!reachable[name]) throw refused
  }
  const health = createDependencyHealth({
    probes: { postgres: probe('postgres'), redis: probe('redis') },
    notify: (notice) => notices.push(notice),
    recheckMs: { first: 100, max: 400 },
    remindMs: { first: 1_000, max: 4_000 },
    now: () => clock,
  })
  const advance = async (ms: number) => {
    clock += ms
    await vi.advanceTimersByTimeAsync(ms)
  }
  return { health, reachable, notices, advance }
}

describe('dependency health', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('tells one line when a dependency goes down and one when it is back, however many failures', async () => {
    const { health, reachable, notices, advance } = harness()
    reachable.redis = false
    for (let i = 0; i < 200; i++) {
      health.suspect('redis', refused)
      await advance(10)
    }
    expect(health.isDown('redis')).toBe(true)
    reachable.redis = true
    await advance(1_000)

    expect(notices.map((n) => n.kind)).toEqual(['down', 'still-down', 'up'])
    expect(notices[0]).toEqual({ kind: 'down', dependency: 'redis', reason: 'ECONNREFUSED' })
    expect(notices.at(-1)).toMatchObject({ kind: 'up', dependency: 'redis' })
    expect(health.isDown('redis')).toBe(false)
    expect(health.isDown('postgres')).toBe(false)
    health.close()
  })

  it('reminds at doubling intervals while a dependency stays down', async () => {
    const { health, reachable, notices, advance } = harness()
    reachable.postgres = false
    health.suspect('postgres', refused)
    // Reminders at 1 s, then 2 s and 4 s apart, then at most every 4 s: 1, 3, 7, 11, 15, 19.
    for (let t = 0; t < 20_000; t += 50) await advance(50)
    const reminders = notices.filter((n) => n.kind === 'still-down')
    expect(reminders.map((n) => Math.round((n as { downForMs: number }).downForMs / 1000))).toEqual(
      [1, 3, 7, 11, 15, 19],
    )
    health.close()
  })

  it('does not call a dependency down when the probe finds it answering (a late error)', async () => {
    const { health, notices, advance } = harness()
    health.suspect('redis', refused)
    health.suspect('redis', refused)
    await advance(1_000)
    expect(notices).toEqual([])
    expect(health.isDown('redis')).toBe(false)
    health.close()
  })

  it('reports only errors that say a dependency is away', async () => {
    const { health, reachable, notices, advance } = harness()
    reachable.postgres = false
    expect(health.report(new Error('syntax error at or near "x"'))).toBe(false)
    expect(health.report(Object.assign(new Error('terminating'), { code: '57P01' }))).toBe(true)
    await advance(10)
    expect(notices).toEqual([{ kind: 'down', dependency: 'postgres', reason: '57P01' }])
    health.close()
  })

  it('resolves whenDown once the dependency is confirmed down', async () => {
    const { health, reachable, advance } = harness()
    let isResolved = false
    void health.whenDown('redis').then(() => (isResolved = true))
    await advance(10)
    expect(isResolved).toBe(false)
    reachable.redis = false
    health.suspect('redis', refused)
    await advance(10)
    expect(isResolved).toBe(true)
    await expect(health.whenDown('redis')).resolves.toBeUndefined()
    health.close()
  })

  it('counts a probe that never answers as failed', async () => {
    const notices: HealthNotice[] = []
    const health = createDependencyHealth({
      probes: { postgres: () => new Promise(() => undefined), redis: async () => undefined },
      notify: (notice) => notices.push(notice),
      probeTimeoutMs: 500,
    })
    health.suspect('postgres', new Error('Connection terminated unexpectedly'))
    await vi.advanceTimersByTimeAsync(600)
    expect(notices).toEqual([
      { kind: 'down', dependency: 'postgres', reason: 'Connection terminated unexpectedly' },
    ])
    health.close()
  })

  it('logs going down and reminders as warnings, coming back as info, data in fields', () => {
    expect(
      describeHealthNotice({ kind: 'down', dependency: 'redis', reason: 'ECONNREFUSED' }),
    ).toEqual({
      level: 'warn',
      message: 'dependency unreachable',
      fields: { dependency: 'redis', reason: 'ECONNREFUSED' },
    })
    expect(
      describeHealthNotice({ kind: 'up', dependency: 'redis', downForMs: 5, failures: 3 }),
    ).toMatchObject({ level: 'info', message: 'dependency reachable again' })
  })
})
