import type { Json } from '@weave/kernel'
import { ApprovalLinkError, consumeApprovalToken, findApprovalToken, withTenant } from '@weave/db'
import type { ApprovalHookBody, ApprovalHookResult } from '../schemas/approval-hooks.js'
import { enqueueOrUnavailable, type AuditContext, type ServiceDeps } from './deps.js'
import { recordDecision } from './record-decision.js'

/** Approval links: decisions by a single-use token instead of a bearer token. */
export interface ApprovalHookService {
  /**
   * Applies the decision an approval link's token is bound to, as its recipient, through the
   * same `recordDecision` as `POST /v1/approvals/{id}/decision`. The token is marked used in the
   * decision's transaction, so a refused decision leaves it unused and changes nothing.
   * @throws db errors by code: `approval-link-not-found` (unknown or altered token),
   *   `approval-link-used`, `approval-link-expired`; `approval-settled`, `approval-expired`,
   *   `already-decided`, `material-mismatch`; `separation-of-duties`, `not-an-approver`
   * @throws {ServiceUnavailableError} when the settled run cannot be enqueued
   */
  use(token: string, body: ApprovalHookBody, context: AuditContext): Promise<ApprovalHookResult>
}

/** Builds the {@link ApprovalHookService}. */
export function createApprovalHookService(deps: ServiceDeps): ApprovalHookService {
  const { database } = deps
  return {
    async use(token, body, context) {
      const found = await findApprovalToken(database, token)
      if (!found) throw new ApprovalLinkError('approval-link-not-found')
      const { approval, resume } = await withTenant(database, found.tenantId, async (tx) => {
        await consumeApprovalToken(tx, found.id)
        return recordDecision(tx, {
          approvalId: found.approvalId,
          subject: found.recipient,
          // A link carries no scopes: an approval restricted to scopes refuses it.
          subjectScopes: [],
          decision: found.decision,
          comment: body.comment ?? null,
          input: (body.input ?? null) as Json | null,
          // The approval must still show what it showed when the link was made.
          materialHash: found.materialHash,
          auditAction: 'approval.decided-by-link',
          auditDetails: { tokenId: found.id },
          context,
        })
      })
      if (resume) {
        await enqueueOrUnavailable(() => deps.queues.enqueueResume(approval.id, resume))
      }
      return { approvalId: approval.id, decision: found.decision, status: approval.status }
    },
  }
}
