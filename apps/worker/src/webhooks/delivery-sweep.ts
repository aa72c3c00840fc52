import { jobId, listPendingDeliveries, type Database, type PendingDelivery } from '@weave/db'
import type { JobQueues } from '@weave/queue'

/** How far ahead the sweep looks: pending deliveries with a retry due within it are checked. */
const HORIZON_MS = 24 * 3600_000

const PAGE = 500

/**
 * Enqueues every pending delivery (soonest first, up to `maxRows` looked at) that has no live
 * job: its announcement was missed (no worker listening) or Redis lost its job. A finished job
 * left behind is replaced. It pages with a cursor, so deliveries whose jobs are alive never hide
 * one that lost its job. Safe to run concurrently: the job id is the delivery's.
 * Returns how many it enqueued.
 */
export async function sweepDeliveries(
  deps: { database: Database; queues: Pick<JobQueues, 'enqueue' | 'hasLiveJob' | 'webhooks'> },
  now = new Date(),
  maxRows = 5_000,
): Promise<number> {
  const dueBefore = new Date(now.getTime() + HORIZON_MS)
  let enqueued = 0
  let after: PendingDelivery | undefined
  for (let seen = 0; seen < maxRows;) {
    const pending = await listPendingDeliveries(deps.database, {
      dueBefore,
      ...(after ? { after } : {}),
      limit: PAGE,
    })
    for (const delivery of pending) {
      const payload = { deliveryId: delivery.id, tenant: delivery.tenant }
      const id = jobId('deliver', payload)
      if (await deps.queues.hasLiveJob('webhooks', id)) continue
      // A finished job would make the enqueue a no-op.
      await deps.queues.webhooks.remove(id)
      await deps.queues.enqueue('deliver', payload, {
        delayMs: delivery.nextAttemptAt.getTime() - now.getTime(),
      })
      enqueued += 1
    }
    seen += pending.length
    if (pending.length < PAGE) break
    after = pending.at(-1)
  }
  return enqueued
}
