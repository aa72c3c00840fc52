import { approvalsUsedUpTo, withTenant, type Database, type RunRow } from '@weave/db'
import type { State } from '@weave/kernel'
import type { GraphSpec } from '@weave/spec'
import { ConflictError } from '../http/app-errors.js'
import { changedApprovals, continuedState, type ChangedApproval } from './approved-material.js'
import { missingCheckpointError, readCheckpoint, tenantStore } from './checkpoints.js'

/** Where a fork starts, and the approvals it asks again because its input changed them. */
export interface ForkPoint {
  /** The checkpoint of the source the fork continues from. */
  seq: number
  /** Approvals the input changed the material of: their steps run again in the fork. */
  askAgain: ChangedApproval[]
}

/**
 * The checkpoint a fork of `source` at `seq` with `input` starts from: `seq`, unless the input
 * changes the material of an approval used up to there (approved material must not change
 * without asking again). Then the fork starts where the earliest such approval was asked, so its
 * approval step runs again and a person decides on the new material; the check repeats from
 * there, since the input may change an earlier approval too. Approvals of subgraph steps are
 * not listed by `approvalsUsedUpTo` and are not checked.
 * @throws {NotFoundError} `checkpoint-not-found` when the source has no checkpoint `seq`
 * @throws {ConflictError} when the checkpoint to start from instead is no longer kept
 */
export async function forkPoint(
  database: Database,
  tenant: string,
  source: RunRow,
  spec: GraphSpec,
  seq: number,
  input: State,
): Promise<ForkPoint> {
  const store = tenantStore(database, tenant)
  const askAgain: ChangedApproval[] = []
  let at = seq
  for (;;) {
    const checkpoint = await readCheckpoint(store, source.graphName, source.id, at)
    if (!checkpoint) throw missingCheckpoint(source, seq, at, askAgain)
    if (Object.keys(input).length === 0) return { seq: at, askAgain }
    const used = await withTenant(database, tenant, (tx) => approvalsUsedUpTo(tx, source.id, at))
    const after = continuedState(spec, checkpoint.state, input)
    const changed = await changedApprovals(spec, used, checkpoint.state, after)
    // An approval is asked before it is used, so each rewind moves to an earlier checkpoint.
    const earliest = Math.min(...changed.map((approval) => approval.rootSeq))
    if (changed.length === 0 || earliest >= at) return { seq: at, askAgain }
    askAgain.push(...changed)
    at = earliest
  }
}

function missingCheckpoint(
  source: RunRow,
  seq: number,
  at: number,
  askAgain: readonly ChangedApproval[],
): Error {
  if (at === seq) return missingCheckpointError(source, seq)
  const steps = askAgain.map((approval) => `"${approval.step}"`).join(', ')
  return new ConflictError(
    `The input changes what approval step ${steps} was approved on, and checkpoint ${at}, ` +
      'where it was asked, is no longer kept: fork from a checkpoint before the approval.',
    { extensions: { reason: 'approval-material-changed', forkedSeq: at } },
  )
}
