import { sql } from 'drizzle-orm'
import { appendAuditAtCommit } from './audit.js'
import type { TenantTx } from './client.js'

const TERMINAL = sql.raw(`('completed', 'failed', 'cancelled')`)

// The checkpoint namespaces a run's rows can be in: its graph's and, for subgraph steps, any
// other graph of the tenant (a child run is keyed `<runId>/<step>` in its own graph's namespace).
// As an array (`ns = any(...)`), so each (namespace, key range) is one range scan of weave_kv's
// primary key; an `ns in (select ...)` join is planned as a scan of the whole table.
const tenantNamespaces = (tx: TenantTx) =>
  sql`array(select '0:checkpoint:' || g.name from graphs g where g.tenant_id = ${tx.tenant})`

/** What one call of pruneRunCheckpoints did. */
export interface CheckpointPruneResult {
  /** History entries deleted. */
  deleted: number
  /** True when the run's policy is fully applied (or the run was not there to apply it to). */
  done: boolean
  /** True when the run was not pruned: it is no longer finished at that seq, or locked. */
  skipped: boolean
}

/**
 * Deletes at most `batchSize` history entries of a finished run (and of its subgraph child runs)
 * beyond the newest `keepHistory` of each, in the caller's transaction; when fewer were left,
 * marks the run as retained at `seenSeq` with its expiry. The run's latest checkpoint (its final
 * state, what GET /v1/runs/{id} and a retry read) and its children's latest checkpoints are never
 * deleted. The run's row is locked for this transaction only, and only when it is still finished
 * at `seenSeq` (SKIP LOCKED: a run a request holds is left for the next pass), so a run resumed
 * meanwhile is never pruned (retention.int.test.ts).
 */
export async function pruneRunCheckpoints(
  tx: TenantTx,
  o: {
    runId: string
    seenSeq: number
    keepHistory: number | null
    expiresAt: Date | null
    batchSize: number
  },
): Promise<CheckpointPruneResult> {
  const locked = await tx.db.execute(
    sql`select 1 from runs where tenant_id = ${tx.tenant} and id = ${o.runId}::uuid
      and status in ${TERMINAL} and checkpoint_seq = ${o.seenSeq}
      for no key update skip locked`,
  )
  if (locked.rows.length === 0) return { deleted: 0, done: true, skipped: true }
  let deleted = 0
  if (o.keepHistory !== null) {
    // History keys are `<run>/<seq, 12 digits>`; zero padding makes key order seq order. Every
    // key of the run and its children lies in [`<run>/`, `<run>0`) ('0' follows '/').
    const result = await tx.db.execute(
      sql`with history as (
          select k.ns, k.key, row_number() over (
              partition by k.ns, left(k.key, length(k.key) - 13)
              order by k.key collate "C" desc) as newer
          from weave_kv k
          where k.tenant_id = ${tx.tenant} and k.ns = any(${tenantNamespaces(tx)})
            and k.key >= ${o.runId + '/'} collate "C" and k.key < ${o.runId + '0'} collate "C"
            and k.key ~ '/[0-9]{12}$'
        ), doomed as (
          select ns, key from history where newer > ${o.keepHistory} limit ${o.batchSize}
        )
        delete from weave_kv k using doomed d
        where k.tenant_id = ${tx.tenant} and k.ns = d.ns and k.key = d.key`,
    )
    deleted = result.rowCount ?? 0
  }
  if (deleted >= o.batchSize) return { deleted, done: false, skipped: false }
  await tx.db.execute(
    sql`update runs set retained_seq = ${o.seenSeq}, retention_due = false,
      expires_at = ${o.expiresAt?.toISOString() ?? null}::timestamptz
      where tenant_id = ${tx.tenant} and id = ${o.runId}::uuid`,
  )
  return { deleted, done: true, skipped: false }
}

/** What one call of deleteExpiredRuns removed. */
export interface RunDeletion {
  /** The runs deleted. */
  runIds: string[]
  checkpoints: number
  events: number
  deliveries: number
  approvals: number
}

/**
 * Deletes, in the caller's transaction, those of `runIds` whose retention time has passed at
 * `now` with their checkpoints, events, webhook deliveries (and attempts) and approvals (and
 * their decisions and links), and records it in the audit log, which is never pruned. A run is
 * kept while something still needs it: a run that forked from it or starts from its state and is
 * not finished (or has no checkpoint of its own), the newest run of its thread (the thread's
 * state), a delivery of it still pending, a retry accepted and not yet taken by a worker (it
 * also holds its concurrency key's slot, which a delete would free without admitting the run in
 * line), or a request holding its row (SKIP LOCKED). Finished
 * runs that referred to a deleted run keep their own state and lose only the reference.
 */
export async function deleteExpiredRuns(
  tx: TenantTx,
  o: { runIds: readonly string[]; now: Date; actor: string },
): Promise<RunDeletion> {
  const none: RunDeletion = { runIds: [], checkpoints: 0, events: 0, deliveries: 0, approvals: 0 }
  if (o.runIds.length === 0) return none
  const t = tx.tenant
  const asked = sql`${`{${o.runIds.join(',')}}`}::uuid[]`
  const doomed = await tx.db.execute<{ id: string }>(
    sql`select r.id from runs r
      where r.tenant_id = ${t} and r.id = any(${asked}) and r.status in ${TERMINAL}
        and r.expires_at <= ${o.now.toISOString()}::timestamptz
        and r.pending_resume is null
        and not exists (
          select 1 from runs o where o.tenant_id = ${t} and o.id <> r.id
            and (o.forked_from = r.id or o.base_run_id = r.id)
            and (o.status not in ${TERMINAL} or o.checkpoint_seq = 0))
        and not (r.thread_id is not null and not exists (
          select 1 from runs o where o.thread_id = r.thread_id and o.thread_seq > r.thread_seq))
        and not exists (
          select 1 from webhook_deliveries d
          where d.tenant_id = ${t} and d.run_id = r.id and d.status = 'pending')
      order by r.id
      for update of r skip locked`,
  )
  const runIds = doomed.rows.map((r) => r.id)
  if (runIds.length === 0) return none
  const ids = sql`${`{${runIds.join(',')}}`}::uuid[]`
  const count = async (query: ReturnType<typeof sql>) => (await tx.db.execute(query)).rowCount ?? 0
  await tx.db.execute(
    sql`delete from webhook_attempts where tenant_id = ${t} and delivery_id in (
      select id from webhook_deliveries where tenant_id = ${t} and run_id = any(${ids}))`,
  )
  const deliveries = await count(
    sql`delete from webhook_deliveries where tenant_id = ${t} and run_id = any(${ids})`,
  )
  const approvalsOf = sql`(select id from approvals where tenant_id = ${t} and run_id = any(${ids}))`
  await tx.db.execute(
    sql`delete from approval_tokens where tenant_id = ${t} and approval_id in ${approvalsOf}`,
  )
  await tx.db.execute(
    sql`delete from approval_decisions where tenant_id = ${t} and approval_id in ${approvalsOf}`,
  )
  const approvals = await count(
    sql`delete from approvals where tenant_id = ${t} and run_id = any(${ids})`,
  )
  const events = await count(
    sql`delete from run_events where tenant_id = ${t} and run_id = any(${ids})`,
  )
  await tx.db.execute(
    sql`update schedule_firings set run_id = null where tenant_id = ${t} and run_id = any(${ids})`,
  )
  await tx.db.execute(
    sql`update runs set forked_from = null where tenant_id = ${t} and forked_from = any(${ids})`,
  )
  await tx.db.execute(
    sql`update runs set base_run_id = null where tenant_id = ${t} and base_run_id = any(${ids})`,
  )
  // One statement per run: a range over a join is planned as a scan of the whole table.
  let checkpoints = 0
  for (const runId of runIds) {
    checkpoints += await count(
      sql`delete from weave_kv where tenant_id = ${t} and ns = any(${tenantNamespaces(tx)})
        and key >= ${runId} collate "C" and key < ${runId + '0'} collate "C"`,
    )
  }
  await tx.db.execute(sql`delete from runs where tenant_id = ${t} and id = any(${ids})`)
  await appendAuditAtCommit(tx, {
    actor: o.actor,
    action: 'retention.runs-deleted',
    target: { kind: 'retention', id: t },
    details: { runIds, checkpoints, events, deliveries, approvals },
  })
  return { runIds, checkpoints, events, deliveries, approvals }
}
