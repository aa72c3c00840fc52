import pg from 'pg'

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
  /** The connection failed or dropped; the listener reconnects by itself. */
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

const MAX_RECONNECT_DELAY_MS = 30_000

/**
 * Listens on {@link RUN_EVENTS_CHANNEL} over one dedicated connection and reconnects after a
 * failure with exponential backoff. Announcements are wake-ups only: a listener reads the events
 * themselves through tenant-scoped queries (run-event-listener.int.test.ts).
 */
export function listenForRunEvents(options: RunEventListenerOptions): RunEventListener {
  const baseDelay = options.reconnectDelayMs ?? 500
  let current: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined
  let attempts = 0
  let isClosed = false
  let markListening: () => void = () => undefined
  const listening = new Promise<void>((resolve) => {
    markListening = resolve
  })

  const drop = (client: pg.Client, err: unknown): void => {
    if (client !== current || isClosed) return
    current = undefined
    client.end().catch(() => undefined)
    options.onError?.(err instanceof Error ? err : new Error(String(err)))
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, baseDelay * 2 ** attempts)
    attempts += 1
    timer = setTimeout(connect, delay)
    timer.unref()
  }

  function connect(): void {
    const client = new pg.Client({ connectionString: options.connectionString })
    current = client
    client.on('notification', (message) => {
      if (message.channel === RUN_EVENTS_CHANNEL && message.payload)
        options.onEvent(message.payload)
    })
    // Errors after a drop must not crash the process; the first one triggers the reconnect.
    client.on('error', (err) => drop(client, err))
    client.on('end', () => drop(client, new Error('the listener connection ended')))
    client
      .connect()
      .then(() => client.query(`LISTEN ${RUN_EVENTS_CHANNEL}`))
      .then(() => {
        if (client !== current) return
        attempts = 0
        markListening()
        options.onListening?.()
      })
      .catch((err: unknown) => drop(client, err))
  }

  connect()
  return {
    listening,
    async close() {
      isClosed = true
      clearTimeout(timer)
      const client = current
      current = undefined
      await client?.end().catch(() => undefined)
    },
  }
}
