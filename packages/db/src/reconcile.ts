import type { Json } from '@weave/kernel'
import { sql } from 'drizzle-orm'
import type { Database } from './client.js'
import type { RunStatus } from './schema/runs.js'

/** A run the reconciler may need to enqueue again. */
export interface RunToReconcile {
  tenant: string
  id: string
  status: RunStatus
  waitingOn: Json | null
  updatedAt: Date
}

/** Options of `listRunsToReconcile`. */
export interface ListRunsToReconcileOptions {
  statuses: readonly RunStatus[]
  /** Only runs not updated since this time. */
  updatedBefore: Date
  /** At most this many runs, oldest update first (1–1000, default 100). */
  limit?: number
}

/**
 * Runs of every tenant in the given statuses that have not changed since `updatedBefore`, for
 * the reconciler that re-enqueues runs whose job was lost. The only cross-tenant read: it goes
 * through a `SECURITY DEFINER` function that returns ids and statuses, nothing else
 * (reconcile.int.test.ts).
 */
export async function listRunsToReconcile(
  database: Pick<Database, 'db'>,
  options: ListRunsToReconcileOptions,
): Promise<RunToReconcile[]> {
  const limit = clamp(options.limit ?? 100)
  const statuses = `{${options.statuses.join(',')}}`
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    status: RunStatus
    waiting_on: Json | null
    updated_at: string | Date
  }>(
    sql`select * from weave_runs_to_reconcile(${statuses}::text[], ${options.updatedBefore.toISOString()}::timestamptz, ${limit})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    status: r.status,
    waitingOn: r.waiting_on,
    updatedAt: new Date(r.updated_at),
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
  }>(
    sql`select * from weave_overdue_approvals(${now}::timestamptz, ${clamp(options.limit ?? 100)})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    runId: r.run_id,
    expiresAt: new Date(r.expires_at),
  }))
}

function clamp(limit: number): number {
  return Number.isFinite(limit) ? Math.min(1000, Math.max(1, Math.trunc(limit))) : 100
}
