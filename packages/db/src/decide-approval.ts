import type { Json } from '@weave/kernel'
import { and, asc, eq, sql } from 'drizzle-orm'
import {
  type Approval,
  type ApprovalDecisionRow,
  lockRunOfApproval,
  withDecisions,
} from './approval-rows.js'
import type { TenantTx } from './client.js'
import { DecisionConflictError, DecisionForbiddenError, NotFoundError } from './errors.js'
import { type Decision, approvalDecisions, approvals } from './schema/approvals.js'
import { isUuid } from './uuid.js'

/** A decision as the resumed run sees it (API.md: `{ by, decision, comment, at }`). */
export interface SettledDecision {
  by: string
  decision: Decision
  comment: string | null
  at: string
}

/** The outcome a settled approval resumes its run with. */
export interface ApprovalOutcome {
  status: 'approved' | 'rejected'
  decisions: SettledDecision[]
}

/** What `decideApproval` needs: who decides, with which scopes, and what they decided. */
export interface DecideApprovalInput {
  approvalId: string
  /** The deciding subject (the token's `sub`, or an approval link's recipient). */
  subject: string
  /** The subject's scopes, matched against the approval's `approvers.scopes`. */
  subjectScopes: readonly string[]
  decision: Decision
  comment?: string | null
  input?: Json | null
  /** When given, must equal the approval's material hash. */
  materialHash?: string | null
}

/** A recorded decision; `settled` is set when this decision settled the approval. */
export interface DecideApprovalResult {
  approval: Approval
  decision: ApprovalDecisionRow
  settled: ApprovalOutcome | null
}

/**
 * The one way to decide an approval, whatever the path (API, approval link). Checked in order:
 * the approval exists; it is pending and not past `expires_at`; the subject has not decided it;
 * the subject is not the run's starter under `separationOfDuties` (read here, not trusted from
 * the caller); the subject is listed in `approvers` (subjects or scopes) when that is set; a
 * given `materialHash` equals the approval's. Then the decision is inserted, and one
 * rejection or `required` approvals from distinct subjects settle it with a compare-and-set on
 * its status, so concurrent deciders settle it once (approvals.int.test.ts).
 * @throws NotFoundError `approval-not-found`.
 * @throws DecisionConflictError `approval-settled`, `approval-expired`, `already-decided` or
 *   `material-mismatch`.
 * @throws DecisionForbiddenError `separation-of-duties` or `not-an-approver`.
 */
export async function decideApproval(
  tx: TenantTx,
  input: DecideApprovalInput,
): Promise<DecideApprovalResult> {
  const { approvalId, subject } = input
  const run = isUuid(approvalId) ? await lockRunOfApproval(tx, approvalId) : null
  if (!run) throw new NotFoundError('approval', approvalId)
  const [row] = await tx.db
    .select({ approval: approvals, isPastExpiry: sql<boolean>`${approvals.expiresAt} <= now()` })
    .from(approvals)
    .where(and(eq(approvals.tenantId, tx.tenant), eq(approvals.id, approvalId)))
    .for('update')
  if (!row) throw new NotFoundError('approval', approvalId)
  const { approval } = row

  if (approval.status !== 'pending') {
    throw new DecisionConflictError('approval-settled', `approval is ${approval.status}`)
  }
  if (row.isPastExpiry) throw new DecisionConflictError('approval-expired', 'approval has expired')
  const earlier = await tx.db
    .select()
    .from(approvalDecisions)
    .where(
      and(eq(approvalDecisions.tenantId, tx.tenant), eq(approvalDecisions.approvalId, approvalId)),
    )
    .orderBy(asc(approvalDecisions.at), asc(approvalDecisions.id))
  if (earlier.some((d) => d.subject === subject)) {
    throw new DecisionConflictError('already-decided', `${subject} has already decided`)
  }
  if (approval.separationOfDuties && subject === run.createdBy) {
    throw new DecisionForbiddenError(
      'separation-of-duties',
      'the subject who started the run cannot decide its approval',
    )
  }
  const { subjects, scopes } = approval.approvers
  const isRestricted = Boolean(subjects?.length) || Boolean(scopes?.length)
  const isApprover =
    (subjects ?? []).includes(subject) ||
    (scopes ?? []).some((scope) => input.subjectScopes.includes(scope))
  if (isRestricted && !isApprover) {
    throw new DecisionForbiddenError('not-an-approver', `${subject} is not an approver`)
  }
  if (
    input.materialHash !== undefined &&
    input.materialHash !== null &&
    input.materialHash !== approval.materialHash
  ) {
    throw new DecisionConflictError(
      'material-mismatch',
      'the decision names material other than the approval shows',
    )
  }

  const [decision] = await tx.db
    .insert(approvalDecisions)
    .values({
      tenantId: tx.tenant,
      approvalId,
      subject,
      decision: input.decision,
      comment: input.comment ?? null,
      input: input.input ?? null,
    })
    .returning()
  const recorded = decision as ApprovalDecisionRow
  const decisions = [...earlier, recorded]
  const approveCount = decisions.filter((d) => d.decision === 'approve').length
  const status =
    input.decision === 'reject' ? 'rejected' : approveCount >= approval.required ? 'approved' : null
  if (status === null) {
    return { approval: { ...approval, decisions }, decision: recorded, settled: null }
  }
  const [settledRow] = await tx.db
    .update(approvals)
    .set({ status, settledAt: sql`now()` })
    .where(
      and(
        eq(approvals.tenantId, tx.tenant),
        eq(approvals.id, approvalId),
        eq(approvals.status, 'pending'),
      ),
    )
    .returning()
  // The row lock above makes this compare-and-set succeed; it guards a path that skipped it.
  if (!settledRow) throw new DecisionConflictError('approval-settled', 'approval already settled')
  const [settledApproval] = await withDecisions(tx, [settledRow])
  return {
    approval: settledApproval as Approval,
    decision: recorded,
    settled: {
      status,
      decisions: decisions.map((d) => ({
        by: d.subject,
        decision: d.decision,
        comment: d.comment,
        at: d.at.toISOString(),
      })),
    },
  }
}
