import { and, asc, eq, inArray } from 'drizzle-orm'
import type { TenantTx } from '../client.js'
import { NotFoundError } from '../errors.js'
import { approvalDecisions, approvals } from '../schema/approvals.js'
import { runs } from '../schema/runs.js'
import { isUuid } from '../uuid.js'

/** An approval row. */
export type ApprovalRow = typeof approvals.$inferSelect

/** A decision row. */
export type ApprovalDecisionRow = typeof approvalDecisions.$inferSelect

/** An approval with its decisions, oldest decision first. */
export type Approval = ApprovalRow & { decisions: ApprovalDecisionRow[] }

/** Attaches each approval's decisions, oldest first. */
export async function withDecisions(tx: TenantTx, rows: ApprovalRow[]): Promise<Approval[]> {
  if (rows.length === 0) return []
  const decisions = await tx.db
    .select()
    .from(approvalDecisions)
    .where(
      and(
        eq(approvalDecisions.tenantId, tx.tenant),
        inArray(
          approvalDecisions.approvalId,
          rows.map((r) => r.id),
        ),
      ),
    )
    .orderBy(asc(approvalDecisions.at), asc(approvalDecisions.id))
  return rows.map((row) => ({
    ...row,
    decisions: decisions.filter((d) => d.approvalId === row.id),
  }))
}

// Locks are always taken run first, then approval, on every path (open, decide, expire, cancel,
// run cancel), so two of these transactions never wait on each other in opposite orders.

/**
 * Locks a run row of this tenant and returns its starter.
 * @throws NotFoundError when the run does not exist in this tenant.
 */
export async function lockRun(tx: TenantTx, runId: string): Promise<{ createdBy: string }> {
  const [run] = isUuid(runId)
    ? await tx.db
        .select({ createdBy: runs.createdBy })
        .from(runs)
        .where(and(eq(runs.tenantId, tx.tenant), eq(runs.id, runId)))
        .for('no key update')
    : []
  if (!run) throw new NotFoundError('run', runId)
  return run
}

/** Locks the run an approval belongs to; returns its starter, or null when there is no approval. */
export async function lockRunOfApproval(
  tx: TenantTx,
  approvalId: string,
): Promise<{ runId: string; createdBy: string } | null> {
  const [run] = await tx.db
    .select({ runId: runs.id, createdBy: runs.createdBy })
    .from(runs)
    .innerJoin(approvals, eq(approvals.runId, runs.id))
    .where(and(eq(approvals.tenantId, tx.tenant), eq(approvals.id, approvalId)))
    .for('no key update', { of: runs })
  return run ?? null
}
