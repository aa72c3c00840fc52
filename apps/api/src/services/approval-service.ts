import type { Json } from '@weave/kernel'
import { getApproval, listApprovals, withTenant, type Approval } from '@weave/db'
import type { Principal } from '../auth/principal.js'
import { NotFoundError } from '../http/app-errors.js'
import type {
  ApprovalPage,
  ApprovalView,
  DecisionBody,
  ListApprovalsQuery,
} from '../schemas/approvals.js'
import type { z } from 'zod'
import { enqueueOrUnavailable, type AuditContext, type ServiceDeps } from './deps.js'
import { recordDecision } from './record-decision.js'

/** Approvals as the API offers them. */
export interface ApprovalService {
  /** The tenant's approvals, newest first. @throws InvalidCursorError (`invalid-cursor`) */
  list(tenant: string, query: z.infer<typeof ListApprovalsQuery>): Promise<ApprovalPage>
  /** One approval with its decisions. @throws {NotFoundError} */
  get(tenant: string, id: string): Promise<ApprovalView>
  /**
   * Decides an approval for a token's subject through `recordDecision`, the path approval links
   * take too: the decision with its run event and audit event in one transaction, and once the
   * approval settles, its run resumed exactly once (the job id is the approval id).
   * @throws db errors by code: `approval-not-found`; `approval-settled`, `approval-expired`,
   *   `already-decided`, `material-mismatch`; `separation-of-duties`, `not-an-approver`
   * @throws {ServiceUnavailableError} when the settled run cannot be enqueued
   */
  decide(
    tenant: string,
    principal: Pick<Principal, 'subject' | 'scopes'>,
    approvalId: string,
    body: DecisionBody,
    context: AuditContext,
  ): Promise<ApprovalView>
}

/** Builds the {@link ApprovalService}. */
export function createApprovalService(deps: ServiceDeps): ApprovalService {
  const { database } = deps
  return {
    async list(tenant, query) {
      const page = await withTenant(database, tenant, (tx) => listApprovals(tx, query))
      return { items: page.items.map(toApprovalView), nextCursor: page.nextCursor }
    },

    async get(tenant, id) {
      const approval = await withTenant(database, tenant, (tx) => getApproval(tx, id))
      if (!approval)
        throw new NotFoundError(`No approval ${id}.`, { problem: 'approval-not-found' })
      return toApprovalView(approval)
    },

    async decide(tenant, principal, approvalId, body, context) {
      const { approval, resume } = await withTenant(database, tenant, (tx) =>
        recordDecision(tx, {
          approvalId,
          subject: principal.subject,
          subjectScopes: [...principal.scopes],
          decision: body.decision,
          comment: body.comment ?? null,
          input: (body.input ?? null) as Json | null,
          materialHash: body.materialHash ?? null,
          auditAction: 'approval.decided',
          context,
        }),
      )
      if (resume) await enqueueOrUnavailable(() => deps.queues.enqueueResume(approvalId, resume))
      return toApprovalView(approval)
    },
  }
}

/** An approval row with its decisions, as clients see it. */
export function toApprovalView(approval: Approval): ApprovalView {
  return {
    id: approval.id,
    runId: approval.runId,
    step: approval.step,
    status: approval.status,
    title: approval.title,
    details: approval.details ?? null,
    materialHash: approval.materialHash,
    approvers: approval.approvers,
    required: approval.required,
    separationOfDuties: approval.separationOfDuties,
    decisions: approval.decisions.map((d) => ({
      by: d.subject,
      decision: d.decision,
      comment: d.comment,
      at: d.at.toISOString(),
    })),
    expiresAt: approval.expiresAt?.toISOString() ?? null,
    createdAt: approval.createdAt.toISOString(),
    settledAt: approval.settledAt?.toISOString() ?? null,
  }
}
