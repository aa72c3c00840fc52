import type { Json } from '@weave/kernel'
import {
  appendAuditAtCommit,
  getApproval,
  hashJson,
  issueApprovalPageLink,
  listApprovals,
  withTenant,
  type Approval,
} from '@weave/db'
import type { Principal } from '../auth/principal.js'
import { NotFoundError } from '../http/app-errors.js'
import type {
  ApprovalLinkView,
  ApprovalPage,
  ApprovalView,
  DecisionBody,
  IssueLinkBody,
  ListApprovalsQuery,
} from '../schemas/approvals.js'
import type { z } from 'zod'
import { asDecisionInputRefusal, refuseReservedDecisionKeys } from './client-input.js'
import type { AuditContext, ServiceDeps } from './deps.js'

/** How a decision request arrived: its `Idempotency-Key` and where it came from. */
export interface DecisionOptions {
  idempotencyKey?: string | undefined
  context: AuditContext
}

/** Approvals as the API offers them. */
export interface ApprovalService {
  /** The tenant's approvals, newest first. @throws InvalidCursorError (`invalid-cursor`) */
  list(tenant: string, query: z.infer<typeof ListApprovalsQuery>): Promise<ApprovalPage>
  /** One approval with its decisions. @throws {NotFoundError} */
  get(tenant: string, id: string): Promise<ApprovalView>
  /**
   * Decides an approval for a token's subject through the approval lifecycle, the path approval
   * links take too: the decision (with its input) and its run and audit events in one
   * transaction, and once the approval settles, its run resumed once (the job id is the approval
   * id; an agent's calls of one turn, asked about together, resume it once the last settles).
   * A resume job the queue refused is left to the reconciler: the decision stands. With an
   * idempotency key, a retried identical request answers as the first did (`replayed`).
   * @throws db errors by code: `approval-not-found`; `approval-settled`, `approval-expired`,
   *   `already-decided`, `material-mismatch`, `idempotency-conflict`; `separation-of-duties`,
   *   `not-an-approver`
   * @throws {BadRequestError} input with a `__` key, or that fails the approval step's schema
   */
  decide(
    tenant: string,
    principal: Pick<Principal, 'subject' | 'scopes'>,
    approvalId: string,
    body: DecisionBody,
    options: DecisionOptions,
  ): Promise<{ approval: ApprovalView; replayed: boolean }>
  /**
   * Issues a single-use page link (`/inbox/a/{token}`) addressed to `body.recipient`, who then
   * decides as that subject; audited as `approval.link-issued` (the token is never recorded).
   * @throws db errors by code: `approval-not-found`; `approval-settled`, `approval-expired`;
   *   `separation-of-duties`, `not-an-approver` (the recipient may not decide it)
   */
  issueLink(
    tenant: string,
    principal: Pick<Principal, 'subject'>,
    approvalId: string,
    body: IssueLinkBody,
    context: AuditContext,
  ): Promise<ApprovalLinkView>
}

/** Options of {@link createApprovalService}. */
export interface ApprovalServiceOptions {
  /** The API's public base URL (WEAVE_PUBLIC_URL), without a trailing slash. */
  publicUrl: string
}

/** Builds the {@link ApprovalService}. */
export function createApprovalService(
  deps: ServiceDeps,
  options: ApprovalServiceOptions,
): ApprovalService {
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

    async decide(tenant, principal, approvalId, body, { idempotencyKey, context }) {
      refuseReservedDecisionKeys(body.input)
      const key = idempotencyKey ?? null
      try {
        const { approval, replayed } = await deps.approvals.decide(tenant, {
          approvalId,
          subject: principal.subject,
          subjectScopes: [...principal.scopes],
          decision: body.decision,
          comment: body.comment ?? null,
          input: (body.input ?? null) as Json | null,
          materialHash: body.materialHash ?? null,
          idempotencyKey: key,
          // The canonical JSON of the body: key order and whitespace do not make it another one.
          requestHash: key === null ? null : hashJson(body),
          context,
        })
        return { approval: toApprovalView(approval), replayed }
      } catch (err) {
        throw asDecisionInputRefusal(err)
      }
    },

    async issueLink(tenant, principal, approvalId, body, context) {
      const link = await withTenant(database, tenant, async (tx) => {
        const issued = await issueApprovalPageLink(tx, {
          approvalId,
          recipient: body.recipient,
          issuer: principal.subject,
          expiresAt: new Date(Date.now() + body.expiresInSeconds * 1000),
        })
        await appendAuditAtCommit(tx, {
          actor: principal.subject,
          action: 'approval.link-issued',
          target: { kind: 'approval', id: approvalId },
          context,
          details: {
            tokenId: issued.tokenId,
            recipient: body.recipient,
            expiresAt: issued.expiresAt.toISOString(),
          },
        })
        return issued
      })
      return {
        url: `${options.publicUrl}/inbox/a/${link.token}`,
        recipient: body.recipient,
        expiresAt: link.expiresAt.toISOString(),
      }
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
      input: d.input ?? null,
      at: d.at.toISOString(),
    })),
    expiresAt: approval.expiresAt?.toISOString() ?? null,
    createdAt: approval.createdAt.toISOString(),
    settledAt: approval.settledAt?.toISOString() ?? null,
  }
}
