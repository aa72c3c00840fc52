import { trace, type Tracer } from '@opentelemetry/api'
import { isDatabaseUnavailable } from '@weave/db'
import type { DependencyHealth } from '@weave/queue'
import { DelayedError, type Job, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import {
  executeRun,
  type ExecuteDeps,
  type Execution,
  type ExecutionOutcome,
} from '../execution/execute-run.js'
import type { WorkerMetrics } from '../metrics.js'
import { inSpan, WORKER_TRACER } from '../tracing.js'
import { jobProcessor } from './job-processor.js'

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
  deps: ExecuteDeps & {
    log: Logger
    metrics?: WorkerMetrics
    health?: DependencyHealth
    tracer?: Tracer
  },
): Processor {
  const tracer = deps.tracer ?? trace.getTracer(WORKER_TRACER)
  // One span per execution of a run; its steps' spans are its children (stepSpans).
  const traced = (execution: Execution) =>
    inSpan(
      tracer,
      `execute run`,
      { 'weave.run.id': execution.runId, 'weave.job.kind': execution.kind },
      async (span) => {
        const result = await executeRun(deps, execution)
        span.setAttribute('weave.run.outcome', result.outcome)
        if ('steps' in result) span.setAttribute('weave.run.steps', result.steps)
        return result
      },
    )
  const execute = async (execution: Execution, job: Job, token: string | undefined) => {
    const log = deps.log.child({ jobId: job.id, runId: execution.runId, tenant: execution.tenant })
    log.debug({ kind: execution.kind }, 'job started')
    let result: ExecutionOutcome
    try {
      result = await traced(execution)
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err
      result = { outcome: 'unavailable', error: err as Error }
    }
    if (result.outcome === 'interrupted' || result.outcome === 'unavailable') {
      const delayMs = result.outcome === 'interrupted' ? INTERRUPTED_RETRY_MS : UNAVAILABLE_RETRY_MS
      if (result.outcome === 'unavailable') {
        // The outage itself is told once, by the process's dependency health.
        if (deps.health) deps.health.suspect('postgres', result.error)
        const level = deps.health ? 'debug' : 'warn'
        log[level]({ err: result.error }, 'Postgres unavailable; the run is tried again shortly')
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
  return jobProcessor<ExecutionOutcome>(
    deps.metrics,
    {
      run: (payload, job, token) =>
        execute({ kind: 'run', jobId: String(job.id), ...payload }, job, token),
      resume: (payload, job, token) =>
        execute({ kind: 'resume', jobId: String(job.id), ...payload }, job, token),
    },
    tracer,
  )
}
