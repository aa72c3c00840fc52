import { ApprovalTimeoutJob, JOB_NAMES, WaitElapsedJob } from '@weave/db'
import { UnrecoverableError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import type { ExecuteDeps } from '../execute-run.js'
import { expireOverdueApproval } from '../expire-approval.js'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'

/** Fires durable timers: a `wait` step's end resumes its run; an approval's timeout expires it. */
export function timersProcessor(
  deps: ExecuteDeps & { log: Logger; metrics?: WorkerMetrics },
): Processor {
  return async (job: Job) => {
    const wait = jobWaitSeconds(job)
    if (wait !== undefined) deps.metrics?.observeQueueWait(job.queueName, wait)
    if (job.name === JOB_NAMES.waitElapsed) {
      const data = WaitElapsedJob.safeParse(job.data)
      if (!data.success) throw new UnrecoverableError(`bad timer payload: ${data.error.message}`)
      const { runId, tenant, seq } = data.data
      await deps.queues.enqueueResume(`wait-${runId}-${seq}`, {
        runId,
        tenant,
        input: {},
        reason: 'timer',
        atSeq: seq,
      })
      deps.log.info({ jobId: job.id, runId, tenant }, 'wait elapsed; run resumed')
      return { resumed: runId }
    }
    if (job.name === JOB_NAMES.approvalTimeout) {
      const data = ApprovalTimeoutJob.safeParse(job.data)
      if (!data.success) throw new UnrecoverableError(`bad timer payload: ${data.error.message}`)
      const { tenant, approvalId } = data.data
      const { outcome, runId } = await expireOverdueApproval(deps, tenant, approvalId)
      deps.log.info(
        { jobId: job.id, runId: runId ?? null, tenant, approvalId, outcome },
        'approval timeout fired',
      )
      return { outcome }
    }
    throw new UnrecoverableError(`unknown job ${job.name}`)
  }
}
