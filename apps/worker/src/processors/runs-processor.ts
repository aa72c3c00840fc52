import { isDatabaseUnavailable, JOBS, jobKindOf } from '@weave/db'
import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import {
  executeRun,
  type ExecuteDeps,
  type Execution,
  type ExecutionOutcome,
} from '../execution/execute-run.js'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'

/** How long a job handed back because Postgres is away waits before it is tried again. */
const UNAVAILABLE_RETRY_MS = 2_000
/** How soon a run interrupted by a shutdown is picked up again (by another worker). */
const INTERRUPTED_RETRY_MS = 250

/**
 * Executes `run` and `resume` jobs. Safe to retry: execution continues from the last checkpoint.
 * A run interrupted by this worker's shutdown, or stopped because Postgres is away, is put back
 * as delayed: no attempt of the job is spent, so a run's job never gives up while the run lives.
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
    let result: ExecutionOutcome
    try {
      result = await executeRun(deps, execution)
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err
      result = { outcome: 'unavailable', error: err as Error }
    }
    if (result.outcome === 'interrupted' || result.outcome === 'unavailable') {
      const delayMs = result.outcome === 'interrupted' ? INTERRUPTED_RETRY_MS : UNAVAILABLE_RETRY_MS
      if (result.outcome === 'unavailable') {
        log.warn({ err: result.error }, 'Postgres unavailable; the run is tried again shortly')
      } else log.info('run interrupted by shutdown; handing it back to the queue')
      await job.moveToDelayed(Date.now() + delayMs, token)
      throw new DelayedError()
    }
    if (result.outcome === 'skipped')
      log.info({ status: result.status }, 'run not runnable; job skipped')
    else if (result.outcome === 'superseded')
      log.warn('run claimed by another job meanwhile; this execution stopped')
    else
      log.info(
        { outcome: result.outcome, stopReason: result.stopReason, steps: result.steps },
        'run stopped',
      )
    return result
  }
}

function parse(job: Job): Execution {
  const kind = jobKindOf(job.queueName, job.name)
  if (kind !== 'run' && kind !== 'resume') throw new UnrecoverableError(`unknown job ${job.name}`)
  const data = JOBS[kind].payload.safeParse(job.data)
  if (!data.success) throw new UnrecoverableError(`bad ${kind} job payload: ${data.error.message}`)
  return kind === 'run'
    ? { kind, jobId: String(job.id), ...JOBS.run.payload.parse(data.data) }
    : { kind, jobId: String(job.id), ...JOBS.resume.payload.parse(data.data) }
}
