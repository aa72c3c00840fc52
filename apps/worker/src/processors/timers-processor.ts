import { ApprovalTimeoutJob, JOB_NAMES, WaitElapsedJob } from '@weave/db'
import { UnrecoverableError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import type { ExecuteDeps } from '../execute-run.js'
import { expireOverdueApproval } from '../expire-approval.js'

/** Fires durable timers: a `wait` step's end resumes its run; an approval's timeout expires it. */
export function timersProcessor(deps: ExecuteDeps & { log: Logger }): Processor {
  return async (job: Job) => {
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
      const outcome = await expireOverdueApproval(deps, data.data.tenant, data.data.approvalId)
      deps.log.info(
        { jobId: job.id, approvalId: data.data.approvalId, outcome },
        'approval timeout fired',
      )
      return { outcome }
    }
    throw new UnrecoverableError(`unknown job ${job.name}`)
  }
}
