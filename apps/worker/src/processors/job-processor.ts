import { JOBS, jobKindOf, type JobKind, type JobPayload } from '@weave/db'
import { UnrecoverableError, type Job, type Processor } from 'bullmq'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'

/** Handles one kind of job, given its checked payload. */
export type JobHandler<K extends JobKind, R> = (
  payload: JobPayload<K>,
  job: Job,
  token: string | undefined,
) => Promise<R>

/**
 * A queue's processor from a handler per job kind it takes. Every job first has its queue wait
 * recorded, its kind looked up in the job catalogue and its payload checked against the kind's
 * schema; a job of a kind the queue does not take, or with a payload that fails its schema, is
 * unrecoverable (retrying cannot fix it).
 */
export function jobProcessor<R>(
  metrics: WorkerMetrics | undefined,
  handlers: { [K in JobKind]?: JobHandler<K, R> },
): Processor {
  return async (job: Job, token?: string): Promise<R> => {
    const wait = jobWaitSeconds(job)
    if (wait !== undefined) metrics?.observeQueueWait(job.queueName, wait)
    const kind = jobKindOf(job.queueName, job.name)
    const handler = kind === undefined ? undefined : handlers[kind]
    if (kind === undefined || handler === undefined) {
      throw new UnrecoverableError(`unknown job ${job.name}`)
    }
    const payload = JOBS[kind].payload.safeParse(job.data)
    if (!payload.success) {
      throw new UnrecoverableError(`bad ${job.name} job payload: ${payload.error.message}`)
    }
    return (handler as JobHandler<typeof kind, R>)(payload.data, job, token)
  }
}
