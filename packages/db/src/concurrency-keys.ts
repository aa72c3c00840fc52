import { and, asc, eq, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { rowCheck } from './row-check.js'
import { runs } from './schema/runs.js'

// Concurrency keys of plain runs: at most `limit` runs of a key hold a slot at once per tenant;
// the others wait in line (`held`, status `queued`) in the order they were started. Every
// decision about a key's slots is taken under the key's advisory lock (migration
// 0024_concurrency-keys): a start here, the end of a run in the trigger that admits the next.
//
// Lock order, so nothing deadlocks: the end of an admitted run locks the run's row, then the
// key (the trigger); an admission holds the key and then locks only runs waiting in line; so
// whoever locks a run waiting in line (a cancel) takes the key first, and a start never waits
// for a run's row while it holds the key.

/** A run's concurrency key and the number of runs of the key that may hold a slot at once. */
export interface ConcurrencyKey {
  key: string
  limit: number
}

/** Where a new run of a key goes: its place in the key's order, and whether it waits in line. */
export interface ConcurrencyPlacement {
  seq: number
  held: boolean
}

/**
 * Takes the key's lock until the transaction ends and decides where a new run goes: in line
 * (`held`) when the key's slots are all taken or runs wait already, else admitted at once.
 */
export async function placeConcurrencyRun(
  tx: TenantTx,
  concurrency: ConcurrencyKey,
): Promise<ConcurrencyPlacement> {
  const result = await tx.db.execute<{ place: number; waits: boolean }>(
    sql`select place, waits from weave_place_concurrency_run(${tx.tenant}, ${concurrency.key}, ${concurrency.limit}::integer)`,
  )
  const row = result.rows[0]!
  return { seq: Number(row.place), held: row.waits }
}

/**
 * Takes the key's lock if the run waits in its key's line, before anything locks its row: an
 * admission holds the key while it locks the runs in line. (A run never goes back into line, so
 * a run read as admitted here stays admitted.)
 */
export async function lockConcurrencyKeyOfHeldRun(tx: TenantTx, runId: string): Promise<void> {
  await tx.db.execute(
    sql`select weave_lock_concurrency_key(tenant_id, concurrency_key) from runs
        where tenant_id = ${tx.tenant} and id = ${runId}
          and ${rowCheck(sql`concurrency_key is not null and held`)}`,
  )
}

/** Takes a key's lock until the transaction ends. */
export async function lockConcurrencyKey(tx: TenantTx, key: string): Promise<void> {
  await tx.db.execute(sql`select weave_lock_concurrency_key(${tx.tenant}, ${key})`)
}

/**
 * Runs of the key admitted and not yet taken by a worker: what whoever ended a run of the key
 * enqueues after commit (enqueueing one already enqueued is a no-op).
 */
export async function readyConcurrencyRuns(
  tx: TenantTx,
  key: string,
): Promise<Array<typeof runs.$inferSelect>> {
  return tx.db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.concurrencyKey, key),
        eq(runs.status, 'queued'),
        eq(runs.held, false),
      ),
    )
    .orderBy(asc(runs.concurrencySeq))
}

/**
 * A run's place in its key's line (1: admitted next), or null for a run not waiting in one.
 */
export async function concurrencyLinePosition(
  tx: TenantTx,
  run: Pick<typeof runs.$inferSelect, 'concurrencyKey' | 'concurrencySeq' | 'held' | 'status'>,
): Promise<number | null> {
  if (run.concurrencyKey === null || run.concurrencySeq === null) return null
  if (!run.held || run.status !== 'queued') return null
  const [row] = await tx.db
    .select({ ahead: sql<number>`count(*)::integer` })
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.concurrencyKey, run.concurrencyKey),
        eq(runs.status, 'queued'),
        eq(runs.held, true),
        sql`${runs.concurrencySeq} < ${run.concurrencySeq}`,
      ),
    )
  return (row?.ahead ?? 0) + 1
}
