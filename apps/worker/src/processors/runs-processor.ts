import { JOB_NAMES, ResumeJob, RunJob } from '@weave/db'
import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import { executeRun, type ExecuteDeps, type ExecutionOutcome } from '../execute-run.js'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'

/**
 * Executes `run` and `resume` jobs. Safe to retry: execution continues from the last checkpoint.
 * A run interrupted by this worker's shutdown is put back as delayed so another worker continues
 * it without spending one of the job's attempts.
 */
export function runsProcessor(
  deps: ExecuteDeps & { log: Logger; metrics?: WorkerMetrics },
): Processor {
  return async (job: Job, token?: string): Promise<ExecutionOutcome> => {
    const wait = jobWaitSeconds(job)
    if (wait !== undefined) deps.metrics?.observeQueueWait(job.queueName, wait)
    const execution = parse(job)
    const log = deps.log.child({ jobId: job.id, runId: execution.runId, tenant: execution.tenant })
    log.debug({ kind: execution.kind }, 'job started')
    const result = await executeRun(deps, execution)
    if (result.outcome === 'interrupted') {
      log.info('run interrupted by shutdown; handing it back to the queue')
      await job.moveToDelayed(Date.now() + 250, token)
      throw new DelayedError()
    }
    if (result.outcome === 'skipped')
      log.info({ status: result.status }, 'run not runnable; job skipped')
    else if (result.outcome === 'superseded')
      log.warn('run leased to another job meanwhile; this execution stopped')
    else
      log.info(
        { outcome: result.outcome, stopReason: result.stopReason, steps: result.steps },
        'run stopped',
      )
    return result
  }
}

function parse(job: Job): Parameters<typeof executeRun>[1] {
  if (job.name === JOB_NAMES.run) {
    const data = RunJob.safeParse(job.data)
    if (!data.success) throw new UnrecoverableError(`bad run job payload: ${data.error.message}`)
    return { kind: 'run', jobId: String(job.id), ...data.data }
  }
  if (job.name === JOB_NAMES.resume) {
    const data = ResumeJob.safeParse(job.data)
    if (!data.success) throw new UnrecoverableError(`bad resume job payload: ${data.error.message}`)
    return { kind: 'resume', jobId: String(job.id), ...data.data }
  }
  throw new UnrecoverableError(`unknown job ${job.name}`)
}
