import {
  appendRunEvent,
  claimRun,
  getRun,
  renewRunLease,
  withTenant,
  type Database,
  type GraphRegistry,
  type ResumeJob,
  type RunRow,
  type RunStatus,
} from '@weave/db'
import type { RunResult, State } from '@weave/kernel'
import type { JobQueues } from '@weave/queue'
import type { ApprovalLinkOptions } from './approval-links.js'
import { applyStop, type StopOutcome } from './apply-stop.js'
import { latestCheckpoint, tenantStore } from './checkpoints.js'
import type { Flight, Inflight } from './inflight.js'

/** A job's request to execute a run: a fresh start (`run`) or a resume with input. */
export type Execution = { jobId: string } & (
  { kind: 'run'; runId: string; tenant: string } | ({ kind: 'resume' } & ResumeJob)
)

export interface ExecuteDeps {
  database: Database
  queues: JobQueues
  registry: GraphRegistry
  inflight: Inflight
  /** Approval links in `approval.requested` events; none when absent. */
  approvalLinks?: ApprovalLinkOptions
  /**
   * How often a run being executed renews its lease in Postgres (default 2.5 s); shorter than
   * the reconciler's quiet period, so the reconciler never hands a live execution to a new job.
   */
  leaseRenewMs?: number
}

/** What an execution did, for logs and job results. */
export type ExecutionOutcome =
  | { outcome: 'skipped'; status: RunStatus | 'missing' }
  | { outcome: 'superseded' }
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
  const flight = await deps.inflight.begin(run.id, run.tenantId, job.jobId)
  const renewal = renewLease(deps, flight, run.id)
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
    // Another job took the run over (step-events.ts); it, not this execution, settles the run.
    if (isLeaseLost(result.error)) return { outcome: 'superseded' }
    if (isRetryable(result)) throw result.error
    const after = await latestCheckpoint(store, graph.name, run.id)
    const outcome = await applyStop(deps, run, result, flight.suspensions.at(-1), after?.seq ?? 0)
    return { outcome, stopReason: result.stopReason, steps: result.steps }
  } finally {
    clearInterval(renewal)
    deps.inflight.end(run.id, flight)
  }
}

/**
 * Renews the run's lease every `leaseRenewMs` while it executes. A refused or failed renewal needs
 * nothing here: the after-step hook checks the lease in the step's own transaction and stops the
 * run before anything of the step is written. The step is not aborted, so no `failed` checkpoint
 * of this execution races the new job's.
 */
function renewLease(deps: ExecuteDeps, flight: Flight, runId: string): NodeJS.Timeout {
  const timer = setInterval(() => {
    withTenant(deps.database, flight.tenant, (tx) => renewRunLease(tx, runId, flight.jobId)).catch(
      () => undefined,
    )
  }, deps.leaseRenewMs ?? 2_500)
  timer.unref()
  return timer
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
  const code = codeOf(result)
  return (
    (result.stopReason === 'error' && code === 'checkpoint-write') ||
    (result.stopReason === 'hook_abort' && code === 'infrastructure')
  )
}

/** True when `error`, or one of its causes (a subgraph step's child run), is a lost lease. */
function isLeaseLost(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 8) return false
  return (error as { code?: unknown }).code === 'lease-lost' || isLeaseLost(error.cause, depth + 1)
}

function codeOf(result: RunResult): unknown {
  return (result.error as { code?: unknown } | undefined)?.code
}

function asState(input: unknown): State {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as State)
    : {}
}
