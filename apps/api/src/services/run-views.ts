import { getRun, readWaitingOn, type RunRow, type RunViewRow, type TenantTx } from '@weave/db'
import { NotFoundError } from '../http/app-errors.js'
import type { JsonObject } from '../schemas/common.js'
import type { RunSummary, RunView } from '../schemas/runs.js'

/** A run row as lists show it. */
export function toRunSummary(run: RunViewRow): RunSummary {
  return {
    id: run.id,
    graph: run.graphName,
    version: run.graphVersion,
    status: run.status,
    stopReason: run.stopReason,
    lastStep: run.lastStep,
    steps: run.steps,
    error: run.error ?? null,
    waitingOn: readWaitingOn(run.waitingOn),
    cancelRequested: run.cancelRequested,
    createdBy: run.createdBy,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    forkedFrom: run.forkedFrom,
    forkedSeq: run.forkedSeq,
    concurrencyKey: run.concurrencyKey,
    concurrencyLimit: run.concurrencyLimit,
  }
}

/** A run row with its state, pending approvals and place in its concurrency key's line. */
export function toRunView(
  run: RunViewRow,
  state: JsonObject,
  pendingApprovals: string[],
  linePosition: number | null = null,
): RunView {
  return { ...toRunSummary(run), state, pendingApprovals, linePosition }
}

/**
 * The run, for this tenant.
 * @throws {NotFoundError} `run-not-found`, also for an id that is not a UUID
 */
export async function requireRun(tx: TenantTx, id: string): Promise<RunRow> {
  const run = await getRun(tx, id)
  if (!run) throw new NotFoundError(`No run ${id}.`, { problem: 'run-not-found' })
  return run
}
