import { WEBHOOK_DELIVERY_CHANNEL, type Database } from '@weave/db'
import type { JobQueues } from '@weave/queue'
import type { PoolClient } from 'pg'
import type { Logger } from 'pino'
import { sweepDeliveries } from './delivery-sweep.js'

/** What the listener works with. */
export interface DeliveryListenerDeps {
  database: Database
  queues: Pick<JobQueues, 'enqueue' | 'hasLiveJob' | 'webhooks'>
  log: Logger
  /** First reconnect delay, doubled per failure up to 30 s (default 500 ms). */
  reconnectDelayMs?: number
}

/** A running listener. */
export interface DeliveryListener {
  /** Resolves once listening the first time (and the catch-up sweep ran). */
  readonly ready: Promise<void>
  close(): Promise<void>
}

const MAX_RECONNECT_DELAY_MS = 30_000

/**
 * Enqueues each delivery as its transaction commits: LISTENs on `WEBHOOK_DELIVERY_CHANNEL` over
 * one pooled connection, and after every (re)connect sweeps the pending deliveries, so those
 * announced while nobody listened are enqueued too. Reconnects with backoff after a failure.
 */
export function listenForDeliveries(deps: DeliveryListenerDeps): DeliveryListener {
  const baseDelay = deps.reconnectDelayMs ?? 500
  let client: PoolClient | undefined
  let timer: NodeJS.Timeout | undefined
  let failures = 0
  let isClosed = false
  let markReady: () => void = () => undefined
  const ready = new Promise<void>((resolve) => {
    markReady = resolve
  })

  const enqueue = (payload: string | undefined): void => {
    const ref = parseRef(payload)
    if (!ref) return
    deps.queues
      .enqueue('deliver', { deliveryId: ref.id, tenant: ref.tenant })
      .catch((err: unknown) =>
        deps.log.warn({ err, deliveryId: ref.id }, 'delivery enqueue failed; the sweep retries it'),
      )
  }

  const drop = (failed: PoolClient, err: unknown): void => {
    if (failed !== client || isClosed) return
    client = undefined
    failed.release(err instanceof Error ? err : true)
    deps.log.warn({ err }, 'delivery listener lost its connection; reconnecting')
    timer = setTimeout(connect, Math.min(MAX_RECONNECT_DELAY_MS, baseDelay * 2 ** failures))
    timer.unref()
    failures += 1
  }

  function connect(): void {
    deps.database.pool
      .connect()
      .then(async (connected) => {
        if (isClosed) {
          connected.release()
          return
        }
        client = connected
        connected.on('notification', (m) => {
          if (m.channel === WEBHOOK_DELIVERY_CHANNEL) enqueue(m.payload)
        })
        connected.on('error', (err) => drop(connected, err))
        await connected.query(`LISTEN ${WEBHOOK_DELIVERY_CHANNEL}`)
        failures = 0
        await sweepDeliveries(deps).catch((err: unknown) =>
          deps.log.warn({ err }, 'delivery sweep failed'),
        )
        markReady()
      })
      .catch((err: unknown) => {
        if (client) drop(client, err)
        else retryConnect(err)
      })
  }

  const retryConnect = (err: unknown): void => {
    if (isClosed) return
    deps.log.warn({ err }, 'delivery listener cannot connect; retrying')
    timer = setTimeout(connect, Math.min(MAX_RECONNECT_DELAY_MS, baseDelay * 2 ** failures))
    timer.unref()
    failures += 1
  }

  connect()
  return {
    ready,
    async close() {
      isClosed = true
      clearTimeout(timer)
      const current = client
      client = undefined
      if (!current) return
      // UNLISTEN so the connection goes back to the pool clean.
      await current.query(`UNLISTEN ${WEBHOOK_DELIVERY_CHANNEL}`).then(
        () => current.release(),
        (err: Error) => current.release(err),
      )
    },
  }
}

function parseRef(payload: string | undefined): { tenant: string; id: string } | undefined {
  try {
    const ref = JSON.parse(payload ?? '') as { tenant?: unknown; id?: unknown }
    return typeof ref.tenant === 'string' && typeof ref.id === 'string'
      ? { tenant: ref.tenant, id: ref.id }
      : undefined
  } catch {
    return undefined
  }
}
