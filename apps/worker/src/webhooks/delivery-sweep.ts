import { deliveryJobId, listPendingDeliveries, type Database } from '@weave/db'
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
  deps: { database: Database; queues: JobQueues },
  now = new Date(),
): Promise<number> {
  const pending = await listPendingDeliveries(deps.database, {
    dueBefore: new Date(now.getTime() + HORIZON_MS),
    limit: 500,
  })
  let enqueued = 0
  for (const delivery of pending) {
    const jobId = deliveryJobId(delivery.id)
    if (await deps.queues.hasLiveJob('webhooks', jobId)) continue
    await deps.queues.webhooks.remove(jobId)
    await deps.queues.enqueueDelivery(
      { deliveryId: delivery.id, tenant: delivery.tenant },
      delivery.nextAttemptAt.getTime() - now.getTime(),
    )
    enqueued += 1
  }
  return enqueued
}
