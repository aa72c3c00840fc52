import type { Database } from '@weave/db'
import { loadCheckpoint, type LoadedCheckpoint } from '@weave/kernel'
import { PgStore } from '@weave/pgstore'
import { withoutProtocolKeys } from '@weave/spec'
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
  store: PgStore,
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
