import { jobId, listPendingDeliveries, type Database } from '@weave/db'
import type { JobQueues } from '@weave/queue'

/** How far ahead the sweep looks: pending deliveries with a retry due within it are checked. */
const HORIZON_MS = 24 * 3600_000

/**
 * Enqueues every pending delivery (up to 500, soonest first) that has no live job: its
 * announcement was missed (no worker listening) or Redis lost its job. A finished job left
 * behind is replaced. Safe to run concurrently: the job id is the delivery's.
 * Returns how many it enqueued.
 */
export async function sweepDeliveries(
  deps: { database: Database; queues: Pick<JobQueues, 'enqueue' | 'hasLiveJob' | 'webhooks'> },
  now = new Date(),
): Promise<number> {
  const pending = await listPendingDeliveries(deps.database, {
    dueBefore: new Date(now.getTime() + HORIZON_MS),
    limit: 500,
  })
  let enqueued = 0
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
  return enqueued
}
