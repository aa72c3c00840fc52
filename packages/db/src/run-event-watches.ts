import { sql } from 'drizzle-orm'
import type { Database, TenantTx } from './client.js'
import { isUuid } from './uuid.js'

/** A stream's watch of a run: who watches, and for how long a registration or renewal holds. */
export interface RunEventWatch {
  /** The stream, unique per stream: several streams of one run each keep their own watch. */
  watcher: string
  /** How long the watch lives unless renewed, in ms. */
  ttlMs: number
}

/**
 * Makes the run's events announced on `weave_run_events` from now on (the `run_events_notify`
 * trigger), or extends the watch: locks the run row `FOR SHARE`, so the call waits for any
 * transaction that appended to the run and has not committed, and every later appender waits for
 * this transaction's commit and then sees the watch. Events committed before the commit are not
 * announced: read them after it (run-event-watches.int.test.ts). Also removes the run's expired
 * watches. One statement; false when the run does not exist in this tenant.
 */
export async function watchRunEvents(
  tx: TenantTx,
  runId: string,
  watch: RunEventWatch,
): Promise<boolean> {
  if (!isUuid(runId)) return false
  // The CTE's row lock is taken before the insert; the delete spares this watcher's own row,
  // which the upsert renews (one statement cannot delete and update the same row).
  const result = await tx.db.execute(sql`
    with run as (
      select id from runs where tenant_id = ${tx.tenant} and id = ${runId} for share
    ), expired as (
      delete from run_event_watches w using run
      where w.run_id = run.id and w.expires_at <= now() and w.watcher <> ${watch.watcher}
    )
    insert into run_event_watches (tenant_id, run_id, watcher, expires_at)
    select ${tx.tenant}, run.id, ${watch.watcher}, now() + ${watch.ttlMs}::float8 * interval '1 millisecond'
    from run
    on conflict (run_id, watcher) do update set expires_at = excluded.expires_at
    returning run_id`)
  return result.rows.length > 0
}

/**
 * Extends a watch that still has at least half its time to live, without locking the run: it
 * was in force all along, so no announcement was missed. False when it has less left (or is
 * gone): register it again with {@link watchRunEvents} and read the events after that.
 */
export async function renewRunEventWatch(
  tx: TenantTx,
  runId: string,
  watch: RunEventWatch,
): Promise<boolean> {
  if (!isUuid(runId)) return false
  const result = await tx.db.execute(sql`
    update run_event_watches set expires_at = now() + ${watch.ttlMs}::float8 * interval '1 millisecond'
    where tenant_id = ${tx.tenant} and run_id = ${runId} and watcher = ${watch.watcher}
      and expires_at > now() + ${watch.ttlMs / 2}::float8 * interval '1 millisecond'
    returning run_id`)
  return result.rows.length > 0
}

/** Ends a stream's watch: the run's events are no longer announced for it. */
export async function unwatchRunEvents(
  tx: TenantTx,
  runId: string,
  watcher: string,
): Promise<void> {
  if (!isUuid(runId)) return
  await tx.db.execute(sql`
    delete from run_event_watches
    where tenant_id = ${tx.tenant} and run_id = ${runId} and watcher = ${watcher}`)
}

/**
 * Deletes every tenant's watches that expired by `now` (weave_delete_expired_run_event_watches):
 * those of streams whose process went away without removing them. Returns how many.
 */
export async function deleteExpiredRunEventWatches(
  database: Pick<Database, 'db'>,
  now: Date,
): Promise<number> {
  const result = await database.db.execute<{ deleted: number }>(
    sql`select weave_delete_expired_run_event_watches(${now.toISOString()}::timestamptz) as deleted`,
  )
  return result.rows[0]?.deleted ?? 0
}
