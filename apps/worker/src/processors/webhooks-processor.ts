import { JOBS, jobKindOf } from '@weave/db'
import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'
import { deliverOnce, type DeliverDeps, type DeliveryOutcome } from '../webhooks/deliver.js'

/**
 * Sends webhook deliveries. A receiver's failure is recorded and the job put back as delayed
 * until the next attempt is due, without spending one of the job's own attempts: those are left
 * for this worker's failures (Postgres away), which throw and are retried by BullMQ.
 */
export function webhooksProcessor(
  deps: DeliverDeps & { log: Logger; metrics?: WorkerMetrics },
): Processor {
  return async (job: Job, token?: string): Promise<DeliveryOutcome> => {
    const wait = jobWaitSeconds(job)
    if (wait !== undefined) deps.metrics?.observeQueueWait(job.queueName, wait)
    if (jobKindOf(job.queueName, job.name) !== 'deliver') {
      throw new UnrecoverableError(`unknown job ${job.name}`)
    }
    const data = JOBS.deliver.payload.safeParse(job.data)
    if (!data.success) throw new UnrecoverableError(`bad delivery payload: ${data.error.message}`)
    const log = deps.log.child({ jobId: job.id, deliveryId: data.data.deliveryId })
    const outcome = await deliverOnce(deps, data.data)
    if (outcome.kind === 'retry') {
      deps.metrics?.recordDeliveryOutcome('retrying')
      log.info({ attempt: outcome.attempt, statusCode: outcome.statusCode }, 'delivery failed')
    } else if (outcome.kind === 'succeeded') {
      deps.metrics?.recordDeliveryOutcome('delivered')
      log.debug({ attempt: outcome.attempt }, 'delivery succeeded')
    } else if (outcome.kind === 'failed') {
      deps.metrics?.recordDeliveryOutcome('failed')
      log.warn({ attempt: outcome.attempt, statusCode: outcome.statusCode }, 'delivery gave up')
    }
    if (outcome.kind === 'retry' || outcome.kind === 'not-due') {
      await job.moveToDelayed(Date.now() + outcome.delayMs, token)
      throw new DelayedError()
    }
    return outcome
  }
}
