import type { Json } from '@weave/kernel'
import {
  appendAudit,
  appendRunEvent,
  decideApproval,
  settledApprovalResumeJob,
  type Approval,
  type Decision,
  type ResumeJob,
  type TenantTx,
} from '@weave/db'
import type { AuditContext } from './deps.js'

/** One decision, whichever path it came by (the decision endpoint, an approval link). */
export interface DecisionRecord {
  approvalId: string
  /** The deciding subject: the token's `sub`, or an approval link's recipient. */
  subject: string
  subjectScopes: readonly string[]
  decision: Decision
  comment?: string | null
  input?: Json | null
  materialHash?: string | null
  /** `approval.decided`, or `approval.decided-by-link` for an approval link. */
  auditAction: string
  /** Added to the audit event's details. */
  auditDetails?: Record<string, Json>
  context: AuditContext
}

/**
 * The one way the API decides an approval, in the caller's transaction: `decideApproval` (every
 * rule: settled, expired, repeated, separation of duties, approvers, material hash), the
 * `approval.decided` run event and exactly one audit event. Returns the approval and, once it
 * settled, the resume job to enqueue after commit (job id: the approval id).
 * @throws db errors by code, as `decideApproval`
 */
export async function recordDecision(
  tx: TenantTx,
  record: DecisionRecord,
): Promise<{ approval: Approval; resume: ResumeJob | null }> {
  const { approval, settled } = await decideApproval(tx, {
    approvalId: record.approvalId,
    subject: record.subject,
    subjectScopes: record.subjectScopes,
    decision: record.decision,
    comment: record.comment ?? null,
    input: record.input ?? null,
    materialHash: record.materialHash ?? null,
  })
  const details = {
    approvalId: approval.id,
    runId: approval.runId,
    step: approval.step,
    by: record.subject,
    decision: record.decision,
    comment: record.comment ?? null,
    status: settled?.status ?? 'pending',
  }
  await appendRunEvent(tx, approval.runId, 'approval.decided', details)
  await appendAudit(tx, {
    actor: record.subject,
    action: record.auditAction,
    target: { kind: 'approval', id: approval.id },
    requestId: record.context.requestId,
    ip: record.context.ip,
    details: { ...details, ...record.auditDetails },
  })
  return { approval, resume: settled ? await settledApprovalResumeJob(tx, approval) : null }
}
