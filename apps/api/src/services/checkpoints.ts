import type { Database, RunRow } from '@weave/db'
import { loadCheckpoint, type LoadedCheckpoint, type Store } from '@weave/kernel'
import { PgStore } from '@weave/pgstore'
import { withoutProtocolKeys } from '@weave/spec'
import { NotFoundError } from '../http/app-errors.js'
import type { JsonObject } from '../schemas/common.js'

/** A tenant's checkpoint store: rows of other tenants are out of its reach (and RLS's). */
export function tenantStore(database: Database, tenant: string): PgStore {
  return new PgStore({ pool: database.pool, tenant })
}

/**
 * A run's latest checkpoint, or history entry `seq`; null when there is none.
 * @throws CorruptCheckpointError, UnsupportedCheckpointSchemaError (server faults)
 */
export async function readCheckpoint(
  store: Store,
  graph: string,
  runId: string,
  seq?: number,
): Promise<LoadedCheckpoint | null> {
  try {
    return await loadCheckpoint(store, graph, runId, seq)
  } catch (err) {
    if ((err as { code?: unknown }).code === 'checkpoint-not-found') return null
    throw err
  }
}

/** A checkpoint's state as clients see it: without the engine's `__` protocol keys. */
export function visibleState(checkpoint: LoadedCheckpoint | null): JsonObject {
  return checkpoint ? withoutProtocolKeys(checkpoint.state) : {}
}

/**
 * The error for a history entry `seq` of `run` that is not there: one the run wrote but its
 * retention policy removed once it finished says so, rather than that it never existed.
 */
export function missingCheckpointError(
  run: Pick<RunRow, 'id' | 'checkpointSeq' | 'retainedSeq'>,
  seq: number,
): NotFoundError {
  const pruned = run.retainedSeq !== null && seq >= 1 && seq <= run.checkpointSeq
  const detail = pruned
    ? `Checkpoint ${seq} of run ${run.id} was removed by its retention policy after the run ` +
      'finished; GET /v1/runs/{id}/history lists the checkpoints kept.'
    : `Run ${run.id} has no checkpoint ${seq}.`
  return new NotFoundError(detail, { problem: 'checkpoint-not-found' })
}
