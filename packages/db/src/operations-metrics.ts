import { sql } from 'drizzle-orm'
import type { Database } from './client.js'
import { RUN_STATUSES, type RunStatus } from './schema/runs.js'

/**
 * How many runs of every tenant are in each status (0 for a status no run is in), for the
 * `/metrics` gauges. The only cross-tenant read besides the reconciler's: a `SECURITY DEFINER`
 * function that returns counts, nothing else (operations-metrics.int.test.ts).
 */
export async function countRunsByStatus(
  database: Pick<Database, 'db'>,
): Promise<Record<RunStatus, number>> {
  const result = await database.db.execute<{ status: string; runs: string | number }>(
    sql`select * from weave_run_status_counts()`,
  )
  const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<
    RunStatus,
    number
  >
  for (const row of result.rows) {
    if ((RUN_STATUSES as readonly string[]).includes(row.status)) {
      counts[row.status as RunStatus] = Number(row.runs)
    }
  }
  return counts
}

/** Pending approvals of every tenant: how many, and when the oldest was opened. */
export interface PendingApprovalStats {
  pending: number
  /** Null when none is pending. */
  oldestCreatedAt: Date | null
}

/** Counts the pending approvals of every tenant, for `/metrics` (operations-metrics.int.test.ts). */
export async function pendingApprovalStats(
  database: Pick<Database, 'db'>,
): Promise<PendingApprovalStats> {
  const result = await database.db.execute<{
    pending: string | number
    oldest_created_at: string | Date | null
  }>(sql`select * from weave_pending_approval_stats()`)
  const row = result.rows[0]
  const oldest = row?.oldest_created_at
  return {
    pending: Number(row?.pending ?? 0),
    oldestCreatedAt: oldest === null || oldest === undefined ? null : new Date(oldest),
  }
}
