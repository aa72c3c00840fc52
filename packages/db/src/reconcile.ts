import type { Json } from '@weave/kernel'
import { sql } from 'drizzle-orm'
import type { Database } from './client.js'
import type { RunStatus } from './schema/runs.js'

// The reconciler's only cross-tenant reads: SECURITY DEFINER functions returning ids and times,
// each a keyset page over its own index, so one kind of repair never starves another
// (reconcile.int.test.ts).

/** Where a keyset page starts: after the row with this time and id. */
export interface KeysetCursor {
  at: Date
  id: string
}

/** Options every reconciler read shares. */
export interface ReconcilePageOptions {
  /** Start after this row (default: the first). */
  after?: KeysetCursor | null
  /** At most this many rows (1–1000, default 100). */
  limit?: number
}

/** A run in one status, unchanged since before a time. */
export interface RunInStatus {
  tenant: string
  id: string
  updatedAt: Date
  leaseJob: string | null
}

/**
 * Runs of every tenant in `status` not changed since `updatedBefore`, oldest change first:
 * queued runs whose job may be lost, running runs whose executor stopped renewing its lease.
 */
export async function listRunsInStatus(
  database: Pick<Database, 'db'>,
  options: ReconcilePageOptions & { status: RunStatus; updatedBefore: Date },
): Promise<RunInStatus[]> {
  const [afterAt, afterId] = cursorParams(options.after)
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    updated_at: string | Date
    lease_job: string | null
  }>(
    sql`select * from weave_runs_in_status(${options.status}, ${options.updatedBefore.toISOString()}::timestamptz, ${afterAt}::timestamptz, ${afterId}::uuid, ${clamp(options.limit)})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    updatedAt: new Date(r.updated_at),
    leaseJob: r.lease_job,
  }))
}

/** A waiting run whose `wait` timer is due. */
export interface ElapsedTimer {
  tenant: string
  id: string
  wakeAt: Date
  waitingOn: Json | null
}

/** Waiting runs of every tenant whose timer was due at or before `now`, earliest first. */
export async function listElapsedTimers(
  database: Pick<Database, 'db'>,
  options: ReconcilePageOptions & { now: Date },
): Promise<ElapsedTimer[]> {
  const [afterAt, afterId] = cursorParams(options.after)
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    wake_at: string | Date
    waiting_on: Json | null
  }>(
    sql`select * from weave_elapsed_timers(${options.now.toISOString()}::timestamptz, ${afterAt}::timestamptz, ${afterId}::uuid, ${clamp(options.limit)})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    wakeAt: new Date(r.wake_at),
    waitingOn: r.waiting_on,
  }))
}

/** A run with a client's resume request no worker has taken. */
export interface PendingResumeRun {
  tenant: string
  id: string
  updatedAt: Date
}

/** Runs of every tenant holding a resume request older than `updatedBefore`. */
export async function listPendingResumes(
  database: Pick<Database, 'db'>,
  options: ReconcilePageOptions & { updatedBefore: Date },
): Promise<PendingResumeRun[]> {
  const [afterAt, afterId] = cursorParams(options.after)
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    updated_at: string | Date
  }>(
    sql`select * from weave_pending_resumes(${options.updatedBefore.toISOString()}::timestamptz, ${afterAt}::timestamptz, ${afterId}::uuid, ${clamp(options.limit)})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    updatedAt: new Date(r.updated_at),
  }))
}

/** A settled approval no step has used while its run still waits on it. */
export interface UnresumedApproval {
  tenant: string
  id: string
  runId: string
  settledAt: Date
}

/** Settled approvals of every tenant, settled before `settledBefore`, whose resume was lost. */
export async function listUnresumedApprovals(
  database: Pick<Database, 'db'>,
  options: ReconcilePageOptions & { settledBefore: Date },
): Promise<UnresumedApproval[]> {
  const [afterAt, afterId] = cursorParams(options.after)
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    run_id: string
    settled_at: string | Date
  }>(
    sql`select * from weave_unresumed_approvals(${options.settledBefore.toISOString()}::timestamptz, ${afterAt}::timestamptz, ${afterId}::uuid, ${clamp(options.limit)})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    runId: r.run_id,
    settledAt: new Date(r.settled_at),
  }))
}

/** A pending approval whose expiry has passed. */
export interface OverdueApproval {
  tenant: string
  id: string
  runId: string
  expiresAt: Date
}

/**
 * Pending approvals of every tenant whose `expires_at` is at or before `now`, for the reconciler
 * that re-schedules lost timeout jobs (reconcile.int.test.ts).
 */
export async function listOverdueApprovals(
  database: Pick<Database, 'db'>,
  options: { now?: Date; limit?: number } = {},
): Promise<OverdueApproval[]> {
  const now = (options.now ?? new Date()).toISOString()
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    run_id: string
    expires_at: string | Date
  }>(sql`select * from weave_overdue_approvals(${now}::timestamptz, ${clamp(options.limit)})`)
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    runId: r.run_id,
    expiresAt: new Date(r.expires_at),
  }))
}

function cursorParams(after: KeysetCursor | null | undefined): [string | null, string | null] {
  return after ? [after.at.toISOString(), after.id] : [null, null]
}

function clamp(limit: number | undefined): number {
  const value = limit ?? 100
  return Number.isFinite(value) ? Math.min(1000, Math.max(1, Math.trunc(value))) : 100
}
