import { WEBHOOK_DELIVERY_CHANNEL, listenOnChannel, type Database } from '@weave/db'
import type { DependencyHealth, JobQueues } from '@weave/queue'
import type { Logger } from 'pino'
import { sweepDeliveries } from './delivery-sweep.js'

/** What the listener works with. */
export interface DeliveryListenerDeps {
  database: Database
  queues: Pick<JobQueues, 'enqueue' | 'hasLiveJob' | 'webhooks'>
  log: Logger
  /** Where a failure that means Postgres or Redis is away is reported (logged once there). */
  health?: Pick<DependencyHealth, 'report'>
  /** First reconnect delay, doubled per failure up to 30 s (default 500 ms). */
  reconnectDelayMs?: number
}

/** A running listener. */
export interface DeliveryListener {
  /** Resolves once listening the first time (and the catch-up sweep ran). */
  readonly ready: Promise<void>
  close(): Promise<void>
}

/**
 * Enqueues each delivery as its transaction commits: LISTENs on `WEBHOOK_DELIVERY_CHANNEL` over
 * one dedicated connection to the database of `deps.database` (so it holds no pool slot), and
 * after every (re)connect sweeps the pending deliveries, so those announced while nobody listened
 * are enqueued too. Reconnects with backoff after a failure.
 * @throws TypeError when the pool of `deps.database` was opened without a connection string.
 */
export function listenForDeliveries(deps: DeliveryListenerDeps): DeliveryListener {
  const connectionString = deps.database.pool.options.connectionString
  if (!connectionString) {
    throw new TypeError('the delivery listener needs a database opened with a connection string')
  }
  const listener = listenOnChannel({
    connectionString,
    channel: WEBHOOK_DELIVERY_CHANNEL,
    onNotification(payload) {
      const ref = parseRef(payload)
      if (!ref) return
      deps.queues
        .enqueue('deliver', { deliveryId: ref.id, tenant: ref.tenant })
        .catch((err: unknown) =>
          deps.log.warn(
            { err, deliveryId: ref.id },
            'delivery enqueue failed; the sweep retries it',
          ),
        )
    },
    // A failed sweep leaves the connection listening: later deliveries are still enqueued, and
    // the reconciler's sweep catches up on the ones it missed.
    onListening: () =>
      sweepDeliveries(deps).then(
        () => undefined,
        (err: unknown) => {
          if (!deps.health?.report(err)) deps.log.warn({ err }, 'delivery sweep failed')
        },
      ),
    onError: (err) => {
      if (deps.health?.report(err)) return
      deps.log.warn({ err }, 'delivery listener connection failed; reconnecting')
    },
    reconnectDelayMs: deps.reconnectDelayMs,
  })
  return { ready: listener.listening, close: () => listener.close() }
}

function parseRef(payload: string): { tenant: string; id: string } | undefined {
  try {
    const ref = JSON.parse(payload) as { tenant?: unknown; id?: unknown }
    return typeof ref.tenant === 'string' && typeof ref.id === 'string'
      ? { tenant: ref.tenant, id: ref.id }
      : undefined
  } catch {
    return undefined
  }
}
