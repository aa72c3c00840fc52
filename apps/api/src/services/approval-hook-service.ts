import type { Decision } from '@weave/db'
import type { Json } from '@weave/kernel'
import type { ApprovalHookBody, ApprovalHookResult } from '../schemas/approval-hooks.js'
import { asDecisionInputRefusal, refuseReservedDecisionKeys } from './client-input.js'
import type { AuditContext, ServiceDeps } from './deps.js'

/**
 * A link's decision as a client sends it: a page link's recipient also sends the decision they
 * chose and the material hash they were shown.
 */
export interface LinkDecisionBody extends ApprovalHookBody {
  decision?: Decision | undefined
  materialHash?: string | undefined
}

/** Approval links: decisions by a single-use token instead of a bearer token. */
export interface ApprovalHookService {
  /**
   * Applies the decision an approval link's token is bound to, as its recipient, through the
   * approval lifecycle, the path of `POST /v1/approvals/{id}/decision` too. The token is marked
   * used in the decision's transaction, so a refused decision leaves it unused and changes
   * nothing; a resume job the queue refused is left to the reconciler.
   * @throws db errors by code: `approval-link-not-found` (unknown or altered token),
   *   `approval-link-used`, `approval-link-expired`, `approval-link-decision` (a page link
   *   without a decision); `approval-settled`, `approval-expired`,
   *   `already-decided`, `material-mismatch`; `separation-of-duties`, `not-an-approver`
   * @throws {BadRequestError} input with a `__` key, or that fails the approval step's schema
   */
  use(token: string, body: LinkDecisionBody, context: AuditContext): Promise<ApprovalHookResult>
}

/** Builds the {@link ApprovalHookService}. */
export function createApprovalHookService(deps: ServiceDeps): ApprovalHookService {
  return {
    async use(token, body, context) {
      refuseReservedDecisionKeys(body.input)
      try {
        const { approval, decision } = await deps.approvals.decideByLink({
          token,
          decision: body.decision,
          materialHash: body.materialHash ?? null,
          comment: body.comment ?? null,
          input: (body.input ?? null) as Json | null,
          context,
        })
        return { approvalId: approval.id, decision: decision.decision, status: approval.status }
      } catch (err) {
        throw asDecisionInputRefusal(err)
      }
    },
  }
}
