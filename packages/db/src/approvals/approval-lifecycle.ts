import type { Json } from '@weave/kernel'
import { appendAuditAtCommit, type AuditContext } from '../audit.js'
import { type Database, type TenantTx, withTenant } from '../client.js'
import { ApprovalLinkError, DecisionConflictError } from '../errors.js'
import { type JobSink, type ResumeJob } from '../jobs.js'
import { appendRunEvent } from '../run-events.js'
import type { Approvers, Decision } from '../schema/approvals.js'
import { consumeApprovalToken, findApprovalToken } from './approval-links.js'
import {
  cancelRunApprovals,
  expireApproval,
  getCallApproval,
  hasPendingSibling,
  openApproval,
} from './approval-queries.js'
import { readApproval } from './approval-for-decision.js'
import type { Approval, ApprovalRow } from './approval-rows.js'
import {
  decideApproval,
  type DecideApprovalInput,
  type DecideApprovalResult,
  type DecisionOnRecord,
} from './decide-approval.js'
import { type DecisionRecord, decisionRecord } from './decision-record.js'
import { type DecisionStatements, decisionOnPool } from './decision-statements.js'

/** The actor of audit events the system writes on its own (an expiry). */
export const SYSTEM_ACTOR = 'system:worker'

/** What an approval step asks for when it yields (its yield reason). */
export interface ApprovalRequest {
  /** The step's path from the root run (`review`, or `child/review` inside subgraph `child`). */
  step: string
  /** The step's seq in its kernel run. */
  seq: number
  /** The agent tool call the approval is about; absent for an approval step. */
  callId?: string
  title: string
  details: Json
  approvers: Approvers | null
  required: number
  separationOfDuties: boolean
  /** null: no timeout. */
  timeoutMs: number | null
  onTimeout: 'expire' | 'fail'
  saveAs: string
  /** JSON Schema of a decision's `input`; null: any object. */
  inputSchema: Json | null
}

/** Where the lifecycle writes and enqueues, and reports a degradation it handled. */
export interface ApprovalLifecycleDeps {
  database: Database
  jobs: JobSink
  log?: { warn(fields: object, message: string): void }
  now?: () => Date
}

/** A decision as a caller hands it over: who, what, and the request it came with. */
export interface DecisionRequest extends DecideApprovalInput {
  context: AuditContext
}

/** A decision made with an approval link's token instead of a bearer token. */
export interface LinkDecisionRequest {
  token: string
  /**
   * The decision a page link's recipient chose; a webhook's link is bound to one, and when given
   * it must be that one.
   */
  decision?: Decision | undefined
  /** The material hash the decider was shown; when given it must be the link's. */
  materialHash?: string | null | undefined
  comment?: string | null
  input?: Json | null
  context: AuditContext
}

/**
 * The approval lifecycle, one module for every path: open (the worker, when an approval step
 * yields), decide (the decision endpoint and approval links, through one rule), settle, the
 * resume job, expiry (a timer, or the reconciler) and cancellation (with the run). A decision's
 * resume job is enqueued after its transaction commits; when that fails the decision still
 * stands and the reconciler enqueues the job later (reconcile.int.test.ts).
 */
export interface ApprovalLifecycle {
  /**
   * Opens the approval of a yielded approval step, in the caller's transaction, and appends
   * `approval.requested`. Idempotent per (run, step, seq). `rootSeq` is the run's checkpoint seq.
   */
  open(
    tx: TenantTx,
    runId: string,
    rootSeq: number,
    request: ApprovalRequest,
  ): Promise<{ approval: Approval; created: boolean }>
  /** Schedules the expiry of a pending approval with a timeout (after its opening committed). */
  scheduleExpiry(tenant: string, approval: ApprovalRow): Promise<void>
  /**
   * Records a decision with its run event and one audit event, and resumes the run once the
   * approval settles (and, for the calls of one agent turn, once all of them are settled).
   * @throws the errors of decideApproval
   */
  decide(tenant: string, request: DecisionRequest): Promise<DecideApprovalResult>
  /**
   * Applies the decision an approval link's token is bound to, as its recipient, through the
   * same rules; the token is used up in the decision's transaction, so a refused decision
   * leaves it unused.
   * @throws ApprovalLinkError `approval-link-not-found`, `approval-link-used`,
   *   `approval-link-expired`, `approval-link-decision` (a page link without a decision, or a
   *   bound link with another); DecisionConflictError `material-mismatch` when the given
   *   material hash is not the link's; the errors of decideApproval
   */
  decideByLink(request: LinkDecisionRequest): Promise<DecideApprovalResult>
  /**
   * Expires a pending approval whose timeout passed and resumes its run (once no approval opened
   * with it is pending); a no-op otherwise.
   */
  expire(tenant: string, approvalId: string): Promise<{ expired: boolean; runId?: string }>
  /** Cancels the pending approvals of a run, in the caller's transaction (the run was cancelled). */
  cancelPending(tx: TenantTx, runId: string): Promise<ApprovalRow[]>
  /** Enqueues the resume of a settled approval's run; false when it is not settled. */
  resume(tenant: string, approval: Approval): Promise<boolean>
  /**
   * The record a resumed approval step completes with: the settled approval `approvalId`, when
   * it belongs to `runId` and `step`, was made on `materialHash` and no step has used it yet;
   * else null (the step then asks again).
   */
  settledDecision(
    tenant: string,
    query: { approvalId: string; runId: string; step: string; materialHash: string },
  ): Promise<DecisionRecord | null>
  /**
   * The record an agent step settles tool call `callId` with: its settled approval opened at
   * (`runId`, `step`, `seq`), when made on `materialHash` and not used yet; else null.
   */
  settledCallDecision(
    tenant: string,
    query: { runId: string; step: string; seq: number; callId: string; materialHash: string },
  ): Promise<DecisionRecord | null>
}

/** Builds the {@link ApprovalLifecycle}. */
export function createApprovalLifecycle(deps: ApprovalLifecycleDeps): ApprovalLifecycle {
  const { database, jobs } = deps
  const now = deps.now ?? (() => new Date())

  async function enqueueResume(tenant: string, approval: Approval): Promise<boolean> {
    const job = resumeJobOf(tenant, approval)
    if (!job) return false
    try {
      await jobs.enqueue('resume', job)
    } catch (err) {
      deps.log?.warn(
        { err, approvalId: approval.id, runId: approval.runId },
        'resume enqueue failed; the reconciler will enqueue it',
      )
    }
    return true
  }

  /**
   * Records a decision; `resumes` is set when the run is to resume now: the approval is settled
   * and no approval opened with it is still pending (see DecideApprovalResult.pendingSibling).
   */
  async function recordDecision(
    statements: TenantTx | DecisionStatements,
    input: DecideApprovalInput,
    onRecord: DecisionOnRecord,
  ): Promise<DecideApprovalResult & { resumes: boolean }> {
    // Its run event and audit event go in the statement that inserts it.
    const result = await decideApproval(statements, input, onRecord)
    const settles = result.didSettle || (result.replayed && result.settled !== null)
    return { ...result, resumes: settles && !result.pendingSibling }
  }

  return {
    async open(tx, runId, rootSeq, request) {
      const expiresAt =
        request.timeoutMs === null ? null : new Date(now().getTime() + request.timeoutMs)
      const opened = await openApproval(tx, {
        runId,
        step: request.step,
        seq: request.seq,
        ...(request.callId === undefined ? {} : { callId: request.callId }),
        rootSeq,
        title: request.title,
        details: request.details,
        ...(request.approvers ? { approvers: request.approvers } : {}),
        required: request.required,
        separationOfDuties: request.separationOfDuties,
        saveAs: request.saveAs,
        onTimeout: request.onTimeout,
        expiresAt,
        inputSchema: request.inputSchema,
      })
      if (opened.created) {
        const { approval } = opened
        await appendRunEvent(tx, runId, 'approval.requested', {
          approvalId: approval.id,
          step: approval.step,
          title: approval.title,
          details: (approval.details ?? null) as Json,
          materialHash: approval.materialHash,
          required: approval.required,
          expiresAt: approval.expiresAt?.toISOString() ?? null,
        })
      }
      return opened
    },

    async scheduleExpiry(tenant, approval) {
      if (approval.status !== 'pending' || !approval.expiresAt) return
      const delayMs = approval.expiresAt.getTime() - now().getTime()
      await jobs.enqueue(
        'approvalTimeout',
        { approvalId: approval.id, tenant },
        { delayMs: Math.max(0, delayMs) },
      )
    },

    async decide(tenant, request) {
      const { context, ...input } = request
      // No transaction: the read and the write each commit on their own, so no lock is held
      // while the API answers other requests between them.
      const { statements, afterWrite } = decisionOnPool(database, tenant)
      const { resumes, ...recorded } = await recordDecision(statements, input, {
        action: 'approval.decided',
        context,
      })
      // The resume is enqueued as soon as the decision is written, while its audit event is
      // chained.
      await Promise.all([
        afterWrite(),
        resumes ? enqueueResume(tenant, recorded.approval) : undefined,
      ])
      return recorded
    },

    async decideByLink(request) {
      const found = await findApprovalToken(database, request.token)
      if (!found) throw new ApprovalLinkError('approval-link-not-found')
      const decision = found.decision ?? request.decision
      if (decision === undefined || (request.decision ?? decision) !== decision) {
        throw new ApprovalLinkError('approval-link-decision')
      }
      if (
        request.materialHash !== undefined &&
        request.materialHash !== null &&
        request.materialHash !== found.materialHash
      ) {
        throw new DecisionConflictError(
          'material-mismatch',
          'the decision names material other than the link was made for',
        )
      }
      return withTenant(database, found.tenantId, async (tx) => {
        await consumeApprovalToken(tx, found.id)
        const { resumes, ...recorded } = await recordDecision(
          tx,
          {
            approvalId: found.approvalId,
            subject: found.recipient,
            // A link carries no scopes: an approval restricted to scopes refuses it.
            subjectScopes: [],
            decision,
            comment: request.comment ?? null,
            input: request.input ?? null,
            // The approval must still show what it showed when the link was made.
            materialHash: found.materialHash,
          },
          {
            action: 'approval.decided-by-link',
            context: request.context,
            details: { tokenId: found.id },
          },
        )
        if (resumes && recorded.didSettle) {
          tx.afterCommit(() => enqueueResume(found.tenantId, recorded.approval))
        }
        return recorded
      })
    },

    async expire(tenant, approvalId) {
      const expired = await withTenant(database, tenant, async (tx) => {
        const row = await expireApproval(tx, approvalId)
        if (!row) return null
        await appendRunEvent(tx, row.runId, 'approval.decided', {
          approvalId,
          step: row.step,
          status: 'expired',
          by: null,
          decision: null,
          comment: null,
        })
        await appendAuditAtCommit(tx, {
          actor: SYSTEM_ACTOR,
          action: 'approval.expired',
          target: { kind: 'approval', id: approvalId },
          details: { runId: row.runId, step: row.step },
        })
        const approval = { ...row, decisions: [] }
        // Resumed once the expiry commits, unless another approval of the turn is still pending.
        if (!(await hasPendingSibling(tx, row))) {
          tx.afterCommit(() => enqueueResume(tenant, approval))
        }
        return approval
      })
      if (!expired) return { expired: false }
      return { expired: true, runId: expired.runId }
    },

    cancelPending: cancelRunApprovals,

    resume: enqueueResume,

    async settledDecision(tenant, query) {
      // One statement: this read is on the path from a decision to its run's completion.
      const approval = await readApproval(database, tenant, query.approvalId)
      if (
        !approval ||
        approval.runId !== query.runId ||
        approval.step !== query.step ||
        approval.materialHash !== query.materialHash ||
        approval.consumedSeq !== null
      ) {
        return null
      }
      return decisionRecord(approval)
    },

    async settledCallDecision(tenant, query) {
      const approval = await withTenant(database, tenant, (tx) => getCallApproval(tx, query))
      if (
        !approval ||
        approval.materialHash !== query.materialHash ||
        approval.consumedSeq !== null
      ) {
        return null
      }
      return decisionRecord(approval)
    },
  }
}

/** The resume job of a settled approval's run (job id: the approval), or null while unsettled. */
export function resumeJobOf(tenant: string, approval: ApprovalRow): ResumeJob | null {
  const reason =
    approval.status === 'expired'
      ? 'approval-expired'
      : approval.status === 'approved' || approval.status === 'rejected'
        ? 'approval-decided'
        : null
  if (reason === null) return null
  return {
    runId: approval.runId,
    tenant,
    reason,
    atSeq: approval.rootSeq ?? approval.seq,
    approvalId: approval.id,
  }
}
