import {
  appendRunEvent,
  isDatabaseUnavailable,
  StepRefusedError,
  transitionRun,
  readyConcurrencyRuns,
  readyThreadRuns,
  renewRunLease,
  withTenant,
  type ApprovalLifecycle,
  type Database,
  type GraphRegistry,
  type JobSink,
  type RunRow,
  type RunStatus,
} from '@weave/db'
import type { RunResult, State } from '@weave/kernel'
import type { Flight, Inflight } from '../inflight.js'
import { applyStop, type StopOutcome } from './apply-stop.js'
import { terminalSteps } from './terminal-steps.js'
import { threadStartState } from './thread-state.js'
import { claimExecution, type ClaimedRun, type Execution } from './claim-run.js'
import { ExecutionStore } from './execution-store.js'
import { findCause, isInfrastructureFailure, LeaseLostError } from './step-hooks.js'
import { tenantStore } from './tenant-store.js'

export type { Execution } from './claim-run.js'

/** What executing runs needs. */
export interface ExecuteDeps {
  database: Database
  jobs: JobSink
  lifecycle: ApprovalLifecycle
  registry: GraphRegistry
  inflight: Inflight
  /** The largest checkpoint a step may write, in bytes. */
  maxStateBytes: number
  /**
   * How often a run being executed renews its claim in Postgres; shorter than the reconciler's
   * quiet period, so the reconciler never hands a live execution to a new job.
   */
  leaseRenewMs: number
}

/** What an execution did, for logs and job results. */
export type ExecutionOutcome =
  | { outcome: 'skipped'; status: RunStatus | 'missing' | 'moved-on' }
  | { outcome: 'superseded' }
  | { outcome: 'unavailable'; error: Error }
  | { outcome: StopOutcome; stopReason: RunResult['stopReason']; steps: number }

/**
 * Executes a run with the kernel from wherever its checkpoints say it is. Safe to retry: a
 * finished step is never re-run, a client's resume input is merged only at the checkpoint it was
 * meant for, and an executor whose claim was taken over can write nothing.
 */
export async function executeRun(deps: ExecuteDeps, job: Execution): Promise<ExecutionOutcome> {
  const claimed = await claimExecution(deps.database, job)
  if ('skipped' in claimed) return { outcome: 'skipped', status: claimed.skipped }
  const { run } = claimed
  const compiled = await compile(deps, run).catch(async (err: unknown) => {
    if (isDatabaseUnavailable(err)) throw err
    // A version that cannot be compiled never will be: the run fails, saying why.
    await failUncompilable(deps, run, claimed.leaseToken, err)
    return null
  })
  if (!compiled) {
    await startReleasedRuns(deps, run)
    return { outcome: 'failed', stopReason: 'error', steps: 0 }
  }
  const { graph, spec } = compiled
  const flight = await deps.inflight.begin({
    tenant: run.tenantId,
    runId: run.id,
    jobId: job.jobId,
    leaseToken: claimed.leaseToken,
    approvalId: claimed.approvalId,
  })
  const store = new ExecutionStore({
    database: deps.database,
    base: tenantStore(deps.database.pool, run.tenantId),
    flight,
    maxStateBytes: deps.maxStateBytes,
    terminalSteps: terminalSteps(graph),
  })
  const renewal = renewClaim(deps, flight)
  try {
    const start =
      run.threadId !== null && claimed.atSeq === 0
        ? await threadStartState(deps.database, run, spec)
        : null
    const result = await runKernel(graph, claimed, store, flight.controller.signal, start)
    if (findCause(result.error, (e): e is LeaseLostError => isLeaseLost(e))) {
      return { outcome: 'superseded' }
    }
    if (isInfrastructureStop(result)) return { outcome: 'unavailable', error: result.error! }
    const outcome = await applyStop(deps, run, flight, result)
    if (ENDED.includes(outcome)) await startReleasedRuns(deps, run)
    return { outcome, stopReason: result.stopReason, steps: result.steps }
  } finally {
    clearInterval(renewal)
    deps.inflight.end(flight)
  }
}

/** Starts, forks or resumes the run, as its checkpoints and its claim say. */
function runKernel(
  graph: Awaited<ReturnType<GraphRegistry['get']>>['graph'],
  claimed: ClaimedRun,
  store: ExecutionStore,
  signal: AbortSignal,
  threadState: State | null,
): Promise<RunResult> {
  const { run } = claimed
  if (claimed.atSeq > 0) {
    return graph.resume(run.id, claimed.input, { store, signal, atSeq: claimed.atSeq })
  }
  if (threadState) return graph.run(threadState, { runId: run.id, store, signal })
  const input = { ...(run.input as Record<string, never>), ...claimed.input }
  if (run.forkedFrom && run.forkedSeq !== null) {
    return graph.resumeAt(run.forkedFrom, run.forkedSeq, input, { store, signal, newRunId: run.id })
  }
  return graph.run(input, { runId: run.id, store, signal })
}

/**
 * Renews the claim every `leaseRenewMs` while the run executes. A renewal that finds the claim
 * gone makes the next step confirm it (and stop); a failed one needs nothing: every checkpoint
 * write checks the claim itself.
 */
function renewClaim(deps: ExecuteDeps, flight: Flight): NodeJS.Timeout {
  const timer = setInterval(() => {
    withTenant(deps.database, flight.tenant, (tx) => renewRunLease(tx, flight.runId, flight.jobId))
      .then((held) => {
        flight.confirmedAt = held ? performance.now() : Number.NEGATIVE_INFINITY
      })
      .catch(() => undefined)
  }, deps.leaseRenewMs)
  timer.unref()
  return timer
}

const ENDED: readonly StopOutcome[] = ['completed', 'failed', 'cancelled']

/**
 * Enqueues the runs the end of this one released: the next run of its thread
 * (weave_release_thread_run) or of its concurrency key (weave_admit_concurrency_runs), admitted
 * in the transaction that ended it. A failed enqueue only delays them: the reconciler adds the
 * job of a queued run that has none.
 */
async function startReleasedRuns(deps: ExecuteDeps, run: RunRow): Promise<void> {
  const { threadId, concurrencyKey } = run
  if (threadId === null && concurrencyKey === null) return
  try {
    const ready = await withTenant(deps.database, run.tenantId, (tx) =>
      threadId !== null ? readyThreadRuns(tx, threadId) : readyConcurrencyRuns(tx, concurrencyKey!),
    )
    for (const next of ready)
      await deps.jobs.enqueue('run', { runId: next.id, tenant: run.tenantId })
  } catch {
    // Left to the reconciler, as above.
  }
}

function isLeaseLost(e: Error): e is LeaseLostError {
  return (
    e instanceof LeaseLostError ||
    (e instanceof StepRefusedError && (e.code === 'lease-lost' || e.code === 'checkpoint-behind'))
  )
}

/**
 * A stop caused by the infrastructure (Postgres away while writing a checkpoint or confirming
 * the claim), not by the graph: the job is tried again later from the last checkpoint.
 */
function isInfrastructureStop(result: RunResult): boolean {
  if (result.stopReason !== 'error' && result.stopReason !== 'hook_abort') return false
  return isInfrastructureFailure(result.error)
}

function compile(deps: ExecuteDeps, run: RunRow) {
  return deps.registry.get(run.tenantId, run.graphName, run.graphVersion)
}

async function failUncompilable(
  deps: ExecuteDeps,
  run: RunRow,
  leaseToken: string,
  err: unknown,
): Promise<void> {
  const error = {
    name: err instanceof Error ? err.name : 'Error',
    message: `graph "${run.graphName}" version ${run.graphVersion} cannot run: ${
      err instanceof Error ? err.message : String(err)
    }`,
    step: null,
    stopReason: 'error',
  }
  await withTenant(deps.database, run.tenantId, async (tx) => {
    const moved = await transitionRun(
      tx,
      run.id,
      ['running'],
      'failed',
      { stopReason: 'error', error },
      { leaseToken },
    )
    if (moved) await appendRunEvent(tx, run.id, 'run.failed', error)
  })
}
