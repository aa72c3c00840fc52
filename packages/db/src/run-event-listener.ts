import { listenOnChannel } from './channel-listener.js'

/** The Postgres channel a trigger notifies with a run's id when an event is appended to it. */
export const RUN_EVENTS_CHANNEL = 'weave_run_events'

/** Options of `listenForRunEvents`. */
export interface RunEventListenerOptions {
  /** The database; LISTEN reads no table, so any role that may connect will do. */
  connectionString: string
  /** A transaction that appended events to this run committed. */
  onEvent(runId: string): void
  /** Listening (again): events committed while the listener was away were not announced. */
  onListening?(): void
  /** The connection failed or dropped (the listener reconnects by itself), or `onEvent` threw. */
  onError?(err: Error): void
  /** First reconnect delay, doubled per failed attempt up to 30 s (default 500 ms). */
  reconnectDelayMs?: number
}

/** A running listener. */
export interface RunEventListener {
  /** Resolves once the first LISTEN succeeded (it may still fail and reconnect later). */
  readonly listening: Promise<void>
  close(): Promise<void>
}

/**
 * Listens on {@link RUN_EVENTS_CHANNEL} over one dedicated connection and reconnects after a
 * failure with exponential backoff. Announcements are wake-ups only: a listener reads the events
 * themselves through tenant-scoped queries (run-event-listener.int.test.ts).
 */
export function listenForRunEvents(options: RunEventListenerOptions): RunEventListener {
  return listenOnChannel({
    connectionString: options.connectionString,
    channel: RUN_EVENTS_CHANNEL,
    // The trigger always sends a run id; an empty payload announces no run.
    onNotification: (runId) => {
      if (runId) options.onEvent(runId)
    },
    onListening: () => options.onListening?.(),
    onError: (err) => options.onError?.(err),
    reconnectDelayMs: options.reconnectDelayMs,
  })
}
