import {
  appendRunEvent,
  claimRun,
  getRun,
  withTenant,
  type Database,
  type GraphRegistry,
  type ResumeJob,
  type RunRow,
  type RunStatus,
} from '@weave/db'
import type { RunResult, State } from '@weave/kernel'
import type { JobQueues } from '@weave/queue'
import { applyStop, type StopOutcome } from './apply-stop.js'
import { latestCheckpoint, tenantStore } from './checkpoints.js'
import type { Inflight } from './inflight.js'

/** A job's request to execute a run: a fresh start (`run`) or a resume with input. */
export type Execution = { jobId: string } & (
  { kind: 'run'; runId: string; tenant: string } | ({ kind: 'resume' } & ResumeJob)
)

export interface ExecuteDeps {
  database: Database
  queues: JobQueues
  registry: GraphRegistry
  inflight: Inflight
}

/** What an execution did, for logs and job results. */
export type ExecutionOutcome =
  | { outcome: 'skipped'; status: RunStatus | 'missing' }
  | { outcome: StopOutcome; stopReason: RunResult['stopReason']; steps: number }

/**
 * Executes a run with the kernel from wherever its checkpoints say it is. Safe to retry: a
 * finished step is never re-run, and resume input is merged only while the checkpoint it was
 * meant for is still the latest.
 */
export async function executeRun(deps: ExecuteDeps, job: Execution): Promise<ExecutionOutcome> {
  const claimed = await claim(deps.database, job)
  if ('skipped' in claimed) return { outcome: 'skipped', status: claimed.skipped }
  const run = claimed.run
  const { graph } = await deps.registry.get(run.tenantId, run.graphName, run.graphVersion)
  const store = tenantStore(deps.database.pool, run.tenantId)
  const flight = deps.inflight.begin(run.id, run.tenantId)
  try {
    const signal = flight.controller.signal
    const latest = await latestCheckpoint(store, graph.name, run.id)
    let result: RunResult
    if (latest) {
      const input =
        job.kind === 'resume' && (job.atSeq === undefined || job.atSeq === latest.seq)
          ? job.input
          : {}
      result = await graph.resume(run.id, input, { store, signal })
    } else if (run.forkedFrom && run.forkedSeq !== null) {
      result = await graph.resumeAt(run.forkedFrom, run.forkedSeq, asState(run.input), {
        store,
        signal,
        newRunId: run.id,
      })
    } else {
      result = await graph.run(asState(run.input), { runId: run.id, store, signal })
    }
    if (isRetryable(result)) throw result.error
    const after = await latestCheckpoint(store, graph.name, run.id)
    const outcome = await applyStop(deps, run, result, flight.suspensions.at(-1), after?.seq ?? 0)
    return { outcome, stopReason: result.stopReason, steps: result.steps }
  } finally {
    deps.inflight.end(run.id)
  }
}

/** Which statuses each kind of execution may take a run from (besides its own retaken lease). */
function claimableFrom(job: Execution): RunStatus[] {
  if (job.kind === 'run') return ['queued']
  return job.reason === 'retry' ? ['failed'] : ['waiting']
}

/** Moves the run to `running` with a conditional update, or says why it cannot run. */
async function claim(
  database: Database,
  job: Execution,
): Promise<{ run: RunRow } | { skipped: RunStatus | 'missing' }> {
  return withTenant(database, job.tenant, async (tx) => {
    const before = await getRun(tx, job.runId)
    if (!before) return { skipped: 'missing' as const }
    if (before.cancelRequested && before.status !== 'running') return { skipped: before.status }
    const run = await claimRun(tx, job.runId, claimableFrom(job), job.jobId)
    if (!run) return { skipped: before.status }
    if (before.status === 'queued') await appendRunEvent(tx, run.id, 'run.started', {})
    else if (before.status !== 'running')
      await appendRunEvent(tx, run.id, 'run.resumed', {
        reason: job.kind === 'resume' ? job.reason : 'run',
      })
    return { run }
  })
}

/** A stop caused by the infrastructure (Postgres away), not by the graph: retry the job. */
function isRetryable(result: RunResult): result is RunResult & { error: Error } {
  const code = (result.error as { code?: unknown } | undefined)?.code
  return (
    (result.stopReason === 'error' && code === 'checkpoint-write') ||
    (result.stopReason === 'hook_abort' && code === 'infrastructure')
  )
}

function asState(input: unknown): State {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as State)
    : {}
}
