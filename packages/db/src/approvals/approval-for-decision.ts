import { getTableColumns, sql } from 'drizzle-orm'
import type { Database } from '../client.js'
import { approvalDecisions, approvals } from '../schema/approvals.js'
import { tableRow } from '../table-row.js'
import { isUuid } from '../uuid.js'
import type { Approval, ApprovalDecisionRow, ApprovalRow } from './approval-rows.js'
import type { DecisionStatements } from './decision-statements.js'

/** An approval as a decision reads it before checking anything. */
export interface ApprovalForDecision {
  approval: ApprovalRow
  /** `expires_at <= now()`: null (falsy) when the approval has no expiry. */
  isPastExpiry: boolean | null
  /** The run's starter, read in the database (separation of duties). */
  runCreatedBy: string
  /** The approval's decisions so far, oldest first (at, id). */
  earlier: ApprovalDecisionRow[]
  /** Another approval opened with it (the calls of one agent turn) is still pending. */
  pendingSibling: boolean
}

/** The columns of an approval and of a decision, for rows read with raw SQL (`tableRow`). */
export const APPROVAL_COLUMNS = Object.entries(getTableColumns(approvals))
export const DECISION_COLUMNS = Object.entries(getTableColumns(approvalDecisions))

/**
 * Reads approval `approvalId` as a decision is checked against it, without a lock, in one
 * statement (weave_read_approval_for_decision, migration 0042): the write that follows
 * (weave_decide_approval) takes the locks and records the decision only if what was read still
 * holds. Null when the tenant has no such approval; `approvalId` must be a UUID.
 */
export async function readApprovalForDecision(
  statements: DecisionStatements,
  approvalId: string,
): Promise<ApprovalForDecision | null> {
  const [row] = await statements.execute<Record<string, unknown>>(
    sql`select (r.approval).*, r.is_past_expiry, r.run_created_by, r.decisions,
          r.has_pending_sibling
        from weave_read_approval_for_decision(${statements.tenant}, ${approvalId}::uuid) r`,
  )
  if (!row) return null
  return {
    approval: tableRow<ApprovalRow>(APPROVAL_COLUMNS, row),
    isPastExpiry: (row.is_past_expiry as boolean | null) ?? null,
    runCreatedBy: row.run_created_by as string,
    earlier: (row.decisions as Array<Record<string, unknown>>).map((d) =>
      tableRow<ApprovalDecisionRow>(DECISION_COLUMNS, d),
    ),
    pendingSibling: row.has_pending_sibling === true,
  }
}

// Named, so each pooled connection parses and plans it once; its own implicit transaction.
const APPROVAL_READ = {
  name: 'weave_read_approval',
  text: 'select (r.approval).*, r.decisions from weave_read_approval($1, $2) r',
}

/**
 * The tenant's approval `approvalId` with its decisions, oldest first (at, id), as `getApproval`
 * reads it, in one statement outside any transaction (weave_read_approval, migration 0038): what
 * a resumed approval step reads. Null when the tenant has no such approval, also for an id that
 * is not a UUID.
 */
export async function readApproval(
  database: Pick<Database, 'pool'>,
  tenant: string,
  approvalId: string,
): Promise<Approval | null> {
  if (typeof tenant !== 'string' || tenant.length === 0) {
    throw new TypeError('tenant must be a non-empty string')
  }
  if (!isUuid(approvalId)) return null
  const { rows } = await database.pool.query<Record<string, unknown>>({
    ...APPROVAL_READ,
    values: [tenant, approvalId],
  })
  const row = rows[0]
  if (!row) return null
  return {
    ...tableRow<ApprovalRow>(APPROVAL_COLUMNS, row),
    decisions: (row.decisions as Array<Record<string, unknown>>).map((d) =>
      tableRow<ApprovalDecisionRow>(DECISION_COLUMNS, d),
    ),
  }
}
