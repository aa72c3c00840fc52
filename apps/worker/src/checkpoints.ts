import { checkpointPrefix } from '@weave/db'
import { PgStore } from '@weave/pgstore'
import type { Pool } from 'pg'

/** The checkpoint store of one tenant: its keys live under a prefix no other tenant can reach. */
export function tenantStore(pool: Pool, tenant: string): PgStore {
  return new PgStore({ pool, prefix: checkpointPrefix(tenant) })
}

/** The seq and status of a run's latest checkpoint, or undefined when it has none yet. */
export async function latestCheckpoint(
  store: PgStore,
  graph: string,
  runId: string,
): Promise<{ seq: number; status: string } | undefined> {
  const raw = await store.get(`checkpoint:${graph}`, runId)
  if (raw === undefined) return undefined
  const doc = JSON.parse(raw) as { seq?: unknown; status?: unknown }
  return { seq: typeof doc.seq === 'number' ? doc.seq : 0, status: String(doc.status) }
}
