import { dependenciesBehind, type Dependency } from './outage-errors.js'

export type { Dependency } from './outage-errors.js'

/** What there is to tell an operator about a dependency; at most one per state change or reminder. */
export type HealthNotice =
  | { kind: 'down'; dependency: Dependency; reason: string }
  | {
      kind: 'still-down'
      dependency: Dependency
      reason: string
      downForMs: number
      /** Failures seen since the dependency went down (the connections' retries included). */
      failures: number
    }
  | { kind: 'up'; dependency: Dependency; downForMs: number; failures: number }

/** Answers when the dependency can be used, rejects otherwise; it should give up on its own soon. */
export type HealthProbe = () => Promise<void>

/** Options of {@link createDependencyHealth}. */
export interface DependencyHealthOptions {
  /** How each dependency is checked: before it is called down, and until it is back. */
  probes: Readonly<Record<Dependency, HealthProbe>>
  /** Receives each state change and each reminder that a dependency is still down. */
  notify(notice: HealthNotice): void
  /** The first and the longest pause between two checks of a dependency that is down. */
  recheckMs?: { first: number; max: number }
  /** When the first reminder is due after a dependency went down, and the longest gap between two. */
  remindMs?: { first: number; max: number }
  /** How long a probe may take before it counts as failed (default 5 s). */
  probeTimeoutMs?: number
  /** Milliseconds of a monotonic clock; `performance.now` unless a test drives it. */
  now?: () => number
}

/** Where the connections of a process report trouble, and what they read back. */
export interface DependencyHealth {
  /**
   * A connection or a query met `err`, which may mean `dependency` is away. The first report is
   * confirmed by a probe before the dependency is called down (a late error of a connection that
   * failed before the dependency came back must not call it down again); later ones are counted.
   */
  suspect(dependency: Dependency, err: unknown): void
  /**
   * Suspects each dependency `err` says may be away (see dependenciesBehind); false when it says
   * none is, so the caller handles it as any other error.
   */
  report(err: unknown): boolean
  /** True from the moment a probe confirmed the dependency down until one finds it back. */
  isDown(dependency: Dependency): boolean
  /** Resolves the next time (or now, if it is) a dependency is called down. */
  whenDown(dependency: Dependency): Promise<void>
  /** Stops checking; no notice follows. */
  close(): void
}

interface Track {
  state: 'up' | 'confirming' | 'down'
  downSince: number
  failures: number
  reason: string
  nextReminderAt: number
  reminderGap: number
  recheckGap: number
  timer: NodeJS.Timeout | undefined
  waiters: Array<() => void>
}

const DEFAULT_RECHECK = { first: 500, max: 5_000 }
const DEFAULT_REMIND = { first: 30_000, max: 600_000 }

/**
 * Tracks whether Postgres and Redis can be reached, from what the connections report, so a
 * process tells an operator once when a dependency goes away and once when it is back, with
 * reminders at doubling intervals in between, instead of one line per failed reconnect
 * (dependency-health.test.ts). While a dependency is down it is probed, at doubling intervals up
 * to `recheckMs.max`, until it answers.
 */
export function createDependencyHealth(options: DependencyHealthOptions): DependencyHealth {
  const now = options.now ?? (() => performance.now())
  const recheck = options.recheckMs ?? DEFAULT_RECHECK
  const remind = options.remindMs ?? DEFAULT_REMIND
  let isClosed = false
  const tracks: Record<Dependency, Track> = { postgres: newTrack(), redis: newTrack() }

  function newTrack(): Track {
    return {
      state: 'up',
      downSince: 0,
      failures: 0,
      reason: '',
      nextReminderAt: 0,
      reminderGap: 0,
      recheckGap: 0,
      timer: undefined,
      waiters: [],
    }
  }

  /** Resolves with the probe's failure, or undefined when the dependency answered. */
  async function probe(dependency: Dependency): Promise<unknown> {
    const timeoutMs = options.probeTimeoutMs ?? 5_000
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      timer.unref()
    })
    try {
      return await Promise.race([
        options.probes[dependency]().then(
          () => undefined,
          (err: unknown) => err ?? new Error('probe failed'),
        ),
        timeout,
      ])
    } finally {
      clearTimeout(timer)
    }
  }

  /** `err` is what the connection met (it names the cause best), `failure` the probe's. */
  function goDown(dependency: Dependency, err: unknown, failure: unknown): void {
    const track = tracks[dependency]
    track.state = 'down'
    track.downSince = now()
    track.failures = 1
    track.reason = reasonOf(err ?? failure)
    track.reminderGap = remind.first
    track.nextReminderAt = track.downSince + remind.first
    track.recheckGap = recheck.first
    options.notify({ kind: 'down', dependency, reason: track.reason })
    for (const resolve of track.waiters.splice(0)) resolve()
    scheduleRecheck(dependency)
  }

  function scheduleRecheck(dependency: Dependency): void {
    const track = tracks[dependency]
    if (isClosed) return
    track.timer = setTimeout(() => void recheckNow(dependency), track.recheckGap)
    // A dependency that stays away must not keep a stopping process alive.
    track.timer.unref()
    track.recheckGap = Math.min(track.recheckGap * 2, recheck.max)
  }

  async function recheckNow(dependency: Dependency): Promise<void> {
    const track = tracks[dependency]
    track.timer = undefined
    const failure = await probe(dependency)
    if (isClosed || track.state !== 'down') return
    if (failure === undefined) {
      track.state = 'up'
      options.notify({
        kind: 'up',
        dependency,
        downForMs: Math.round(now() - track.downSince),
        failures: track.failures,
      })
      return
    }
    countFailure(dependency, failure)
    scheduleRecheck(dependency)
  }

  function countFailure(dependency: Dependency, err: unknown): void {
    const track = tracks[dependency]
    track.failures += 1
    track.reason = reasonOf(err)
    const at = now()
    if (at < track.nextReminderAt) return
    track.reminderGap = Math.min(track.reminderGap * 2, remind.max)
    track.nextReminderAt = at + track.reminderGap
    options.notify({
      kind: 'still-down',
      dependency,
      reason: track.reason,
      downForMs: Math.round(at - track.downSince),
      failures: track.failures,
    })
  }

  const health: DependencyHealth = {
    report(err) {
      const dependencies = dependenciesBehind(err)
      for (const dependency of dependencies) health.suspect(dependency, err)
      return dependencies.length > 0
    },
    suspect(dependency, err) {
      const track = tracks[dependency]
      if (isClosed) return
      if (track.state === 'down') {
        countFailure(dependency, err)
        return
      }
      if (track.state === 'confirming') return
      track.state = 'confirming'
      void probe(dependency).then((failure) => {
        if (isClosed || track.state !== 'confirming') return
        if (failure === undefined) track.state = 'up'
        else goDown(dependency, err, failure)
      })
    },
    isDown: (dependency) => tracks[dependency].state === 'down',
    whenDown(dependency) {
      const track = tracks[dependency]
      if (track.state === 'down') return Promise.resolve()
      return new Promise((resolve) => track.waiters.push(resolve))
    },
    close() {
      isClosed = true
      for (const track of Object.values(tracks)) clearTimeout(track.timer)
    },
  }
  return health
}

/** How a process logs a notice: its level, constant message and fields. */
export function describeHealthNotice(notice: HealthNotice): {
  level: 'warn' | 'info'
  message: string
  fields: Record<string, unknown>
} {
  const { kind, ...fields } = notice
  if (kind === 'down') return { level: 'warn', message: 'dependency unreachable', fields }
  if (kind === 'still-down') {
    return { level: 'warn', message: 'dependency still unreachable', fields }
  }
  return { level: 'info', message: 'dependency reachable again', fields }
}

/** The error's code (ECONNREFUSED, 57P01, …), else its message: short, and never a URL. */
function reasonOf(err: unknown): string {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return code
    if (e instanceof AggregateError && e.errors.length > 0) return reasonOf(e.errors[0])
  }
  return err instanceof Error ? err.message : String(err)
}
