import { getTableColumns, sql } from 'drizzle-orm'
import type { TenantTx } from '../client.js'
import { approvalDecisions, approvals } from '../schema/approvals.js'
import { tableRow } from '../table-row.js'
import type { ApprovalDecisionRow, ApprovalRow } from './approval-rows.js'

/** A locked approval as a decision reads it before checking anything. */
export interface ApprovalForDecision {
  approval: ApprovalRow
  /** `expires_at <= now()`: null (falsy) when the approval has no expiry. */
  isPastExpiry: boolean | null
  /** The run's starter, read in the database (separation of duties). */
  runCreatedBy: string
  /** The approval's decisions so far, oldest first (at, id). */
  earlier: ApprovalDecisionRow[]
}

/** The columns of an approval and of a decision, for rows read with raw SQL (`tableRow`). */
export const APPROVAL_COLUMNS = Object.entries(getTableColumns(approvals))
export const DECISION_COLUMNS = Object.entries(getTableColumns(approvalDecisions))

/**
 * Locks the run of approval `approvalId`, then the approval (the order of every path,
 * approval-rows.ts), and reads it with its run's starter and its earlier decisions: one statement
 * (weave_lock_approval_for_decision, migration 0034) for what took three. Null when the tenant has
 * no such approval; `approvalId` must be a UUID.
 */
export async function lockApprovalForDecision(
  tx: TenantTx,
  approvalId: string,
): Promise<ApprovalForDecision | null> {
  const { rows } = await tx.db.execute<Record<string, unknown>>(
    sql`select (r.approval).*, r.is_past_expiry, r.run_created_by, r.decisions
        from weave_lock_approval_for_decision(${tx.tenant}, ${approvalId}::uuid) r`,
  )
  const row = rows[0]
  if (!row) return null
  return {
    approval: tableRow<ApprovalRow>(APPROVAL_COLUMNS, row),
    isPastExpiry: (row.is_past_expiry as boolean | null) ?? null,
    runCreatedBy: row.run_created_by as string,
    earlier: (row.decisions as Array<Record<string, unknown>>).map((d) =>
      tableRow<ApprovalDecisionRow>(DECISION_COLUMNS, d),
    ),
  }
}
