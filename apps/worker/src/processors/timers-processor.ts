import { JOBS, jobKindOf, type ApprovalLifecycle, type JobSink } from '@weave/db'
import { UnrecoverableError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'

/** What the timers need. */
export interface TimersDeps {
  jobs: JobSink
  lifecycle: ApprovalLifecycle
  log: Logger
  metrics?: WorkerMetrics
}

/** Fires durable timers: a `wait` step's end resumes its run; an approval's timeout expires it. */
export function timersProcessor(deps: TimersDeps): Processor {
  return async (job: Job) => {
    const wait = jobWaitSeconds(job)
    if (wait !== undefined) deps.metrics?.observeQueueWait(job.queueName, wait)
    const kind = jobKindOf(job.queueName, job.name)
    if (kind === 'waitElapsed') {
      const data = JOBS.waitElapsed.payload.safeParse(job.data)
      if (!data.success) throw new UnrecoverableError(`bad timer payload: ${data.error.message}`)
      const { runId, tenant, seq } = data.data
      await deps.jobs.enqueue('resume', { runId, tenant, reason: 'timer', atSeq: seq })
      deps.log.info({ jobId: job.id, runId, tenant }, 'wait elapsed; run resumed')
      return { resumed: runId }
    }
    if (kind === 'approvalTimeout') {
      const data = JOBS.approvalTimeout.payload.safeParse(job.data)
      if (!data.success) throw new UnrecoverableError(`bad timer payload: ${data.error.message}`)
      const { tenant, approvalId } = data.data
      const { expired, runId } = await deps.lifecycle.expire(tenant, approvalId)
      deps.log.info(
        { jobId: job.id, runId: runId ?? null, tenant, approvalId, expired },
        'approval timeout fired',
      )
      return { expired }
    }
    throw new UnrecoverableError(`unknown job ${job.name}`)
  }
}
