import { listenForRunEvents } from '@weave/db'
import type { DependencyHealth } from '@weave/queue'
import type { Logger } from 'pino'

/** Wakes the event streams of a run when a transaction appending to it commits. */
export interface RunEventWakeups {
  /** Calls `wake` for each announced event of `runId`, and after a reconnect; returns an unsubscribe. */
  subscribe(runId: string, wake: () => void): () => void
  /** Resolves once the first LISTEN succeeded. */
  readonly listening: Promise<void>
  close(): Promise<void>
}

/**
 * Wake-ups over one Postgres LISTEN connection per API process (the `run_events_notify` trigger).
 * Any process's committed event reaches every API process, so a stream sees a run executed
 * elsewhere. After a reconnect every stream is woken: what was announced meanwhile was missed.
 */
export function createRunEventWakeups(options: {
  connectionString: string
  log: Pick<Logger, 'warn' | 'info'>
  /** Where a failure that means Postgres is away is reported (logged once there); else a line each. */
  health?: Pick<DependencyHealth, 'report'>
}): RunEventWakeups {
  const subscribers = new Map<string, Set<() => void>>()
  let hasListened = false
  const listener = listenForRunEvents({
    connectionString: options.connectionString,
    onEvent(runId) {
      for (const wake of subscribers.get(runId) ?? []) wake()
    },
    onListening() {
      if (hasListened) options.log.info('run event listener reconnected')
      hasListened = true
      for (const wakes of subscribers.values()) for (const wake of wakes) wake()
    },
    onError: (err) => {
      if (options.health?.report(err)) return
      options.log.warn({ err }, 'run event listener failed; reconnecting')
    },
  })
  return {
    listening: listener.listening,
    subscribe(runId, wake) {
      const wakes = subscribers.get(runId) ?? new Set()
      subscribers.set(runId, wakes)
      wakes.add(wake)
      return () => {
        wakes.delete(wake)
        if (wakes.size === 0 && subscribers.get(runId) === wakes) subscribers.delete(runId)
      }
    },
    close: () => listener.close(),
  }
}
