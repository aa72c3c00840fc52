import pg from 'pg'

/** Options of `listenOnChannel`. */
export interface ChannelListenerOptions {
  /** The database; LISTEN reads no table, so any role that may connect will do. */
  connectionString: string
  /** The channel: a plain lower-case identifier, since it is written into the LISTEN statement. */
  channel: string
  /** A NOTIFY on the channel committed; `payload` is '' when it carried none. */
  onNotification(payload: string): void
  /**
   * Listening (again): notifications committed while the listener was away were not delivered.
   * A rejection is reported to `onError` and does not drop the connection.
   */
  onListening?(): void | Promise<void>
  /** The connection failed or dropped (the listener reconnects by itself), or a callback threw. */
  onError?(err: Error): void
  /** First reconnect delay, doubled per failed attempt up to 30 s (default 500 ms). */
  reconnectDelayMs?: number
}

/** A running channel listener. */
export interface ChannelListener {
  /**
   * Resolves once the first LISTEN succeeded and the `onListening` it triggered settled (the
   * connection may still fail and reconnect later). Stays pending if closed before that.
   */
  readonly listening: Promise<void>
  /** Ends the connection; no reconnect follows. */
  close(): Promise<void>
}

const MAX_RECONNECT_DELAY_MS = 30_000
const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * Listens on one channel over a dedicated connection (never a pooled one: a LISTEN would hold
 * its pool slot for good) and reconnects after a failure with exponential backoff, reset once
 * LISTEN succeeds again. Nothing the connection does can end the process: its errors and its end
 * only trigger the reconnect (channel-listener.int.test.ts).
 * @throws TypeError when `channel` is not a plain lower-case identifier.
 */
export function listenOnChannel(options: ChannelListenerOptions): ChannelListener {
  const { channel } = options
  if (typeof channel !== 'string' || !CHANNEL_NAME.test(channel)) {
    throw new TypeError(`channel must be a plain identifier (${CHANNEL_NAME.source})`)
  }
  const baseDelay = options.reconnectDelayMs ?? 500
  let current: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined
  let attempts = 0
  let isClosed = false
  let markListening: () => void = () => undefined
  const listening = new Promise<void>((resolve) => {
    markListening = resolve
  })

  // The callbacks run inside the connection's event handlers, where a throw would surface as an
  // uncaught exception; a throwing onError has nowhere left to report to.
  const report = (err: unknown): void => {
    try {
      options.onError?.(err instanceof Error ? err : new Error(String(err)))
    } catch {
      // ignored: see above
    }
  }

  const drop = (client: pg.Client, err: unknown): void => {
    if (client !== current || isClosed) return
    current = undefined
    client.end().catch(() => undefined)
    report(err)
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, baseDelay * 2 ** attempts)
    attempts += 1
    timer = setTimeout(connect, delay)
    timer.unref()
  }

  function connect(): void {
    if (isClosed) return
    const client = new pg.Client({ connectionString: options.connectionString })
    current = client
    client.on('notification', (message) => {
      if (message.channel !== channel) return
      try {
        options.onNotification(message.payload ?? '')
      } catch (err) {
        report(err)
      }
    })
    // Errors after a drop must not crash the process; the first one triggers the reconnect.
    client.on('error', (err) => drop(client, err))
    client.on('end', () => drop(client, new Error(`the connection listening on ${channel} ended`)))
    client
      .connect()
      .then(() => client.query(`LISTEN ${channel}`))
      .then(async () => {
        if (client !== current) {
          // Closed (or replaced) while connecting: this connection must not stay open.
          await client.end().catch(() => undefined)
          return
        }
        attempts = 0
        try {
          await options.onListening?.()
        } catch (err) {
          // The connection listens: dropping it would only miss more notifications.
          report(err)
        }
        markListening()
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
