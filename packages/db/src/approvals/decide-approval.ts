import type { Json } from '@weave/kernel'
import { toPointer, validateAgainstSchema } from '@weave/spec'
import { sql } from 'drizzle-orm'
import { type AuditContext, type AuditInput, pendingAuditInsert } from '../audit.js'
import { chainAuditAfterCommit } from '../audit-pending-chain.js'
import type { TenantTx } from '../client.js'
import {
  DecisionConflictError,
  DecisionForbiddenError,
  DecisionInputError,
  IdempotencyConflictError,
  NotFoundError,
} from '../errors.js'
import { rowCheck } from '../row-check.js'
import { type RunEventData, runEventAppendCall } from '../run-events.js'
import type { Decision } from '../schema/approvals.js'
import { tableRow } from '../table-row.js'
import { isUuid } from '../uuid.js'
import {
  APPROVAL_COLUMNS,
  DECISION_COLUMNS,
  lockApprovalForDecision,
} from './approval-for-decision.js'
import type { Approval, ApprovalDecisionRow, ApprovalRow } from './approval-rows.js'
import { approverRefusal } from './approver-rule.js'
import { type DecisionRecord, decisionRecord } from './decision-record.js'

/** What `decideApproval` needs: who decides, with which scopes, and what they decided. */
export interface DecideApprovalInput {
  approvalId: string
  /** The deciding subject (the token's `sub`, or an approval link's recipient). */
  subject: string
  /** The subject's scopes, matched against the approval's `approvers.scopes`. */
  subjectScopes: readonly string[]
  decision: Decision
  comment?: string | null
  /** Saved with the decision in the step's record; checked against the step's `schema`. */
  input?: Json | null
  /** When given, must equal the approval's material hash. */
  materialHash?: string | null
  /** A retried request with this key and the same `requestHash` answers as the first did. */
  idempotencyKey?: string | null
  requestHash?: string | null
}

/**
 * How a decision goes on the record: its `approval.decided` run event and its audit event (by the
 * deciding subject, on the approval, with `details` added to the event's data and run id).
 */
export interface DecisionOnRecord {
  action: string
  context: AuditContext
  details?: Record<string, Json>
}

/** A recorded (or replayed) decision; `settled` is set when the approval is settled now. */
export interface DecideApprovalResult {
  approval: Approval
  decision: ApprovalDecisionRow
  /** The record the approval step completes with, once the approval settled. */
  settled: DecisionRecord | null
  /** True when this call settled the approval (not a replay, not a decision short of quorum). */
  didSettle: boolean
  /** True when an idempotency key replayed an earlier identical decision: nothing changed. */
  replayed: boolean
}

/**
 * The one way to decide an approval, whatever the path (API, approval link). Checked in order:
 * the approval exists; a replay of this subject's own earlier decision under the same
 * idempotency key answers as it did; it is pending and not past `expires_at`; the subject has not
 * decided it; the approver rule (approver-rule.ts: separation of duties, named approvers or
 * scopes; the run's starter is read here, not trusted from the caller); a given `materialHash`
 * equals the approval's; the input holds no `__` key and satisfies the step's schema. Then the
 * decision is inserted, and one rejection or `required` approvals from distinct subjects settle
 * it with a compare-and-set on its status, so concurrent deciders settle it once
 * (approvals.int.test.ts).
 * @throws NotFoundError `approval-not-found`.
 * @throws DecisionConflictError `approval-settled`, `approval-expired`, `already-decided` or
 *   `material-mismatch`; IdempotencyConflictError for a key reused with another body.
 * @throws DecisionForbiddenError `separation-of-duties` or `not-an-approver`.
 * @throws DecisionInputError `decision-input-invalid`, listing every problem with its path.
 */
export async function decideApproval(
  tx: TenantTx,
  input: DecideApprovalInput,
  onRecord?: DecisionOnRecord,
): Promise<DecideApprovalResult> {
  const { approvalId, subject } = input
  // The run's row, then the approval, locked; the earlier decisions read after both locks.
  const row = isUuid(approvalId) ? await lockApprovalForDecision(tx, approvalId) : null
  if (!row) throw new NotFoundError('approval', approvalId)
  const { approval, earlier } = row
  const own = earlier.find((d) => d.subject === subject)

  const key = input.idempotencyKey ?? null
  if (own && key !== null && own.idempotencyKey === key) {
    if (own.requestHash !== (input.requestHash ?? null)) {
      throw new IdempotencyConflictError(key, approvalId)
    }
    const replayed = { ...approval, decisions: earlier }
    return {
      approval: replayed,
      decision: own,
      settled: decisionRecord(replayed),
      didSettle: false,
      replayed: true,
    }
  }
  if (approval.status !== 'pending') {
    throw new DecisionConflictError('approval-settled', `approval is ${approval.status}`)
  }
  if (row.isPastExpiry) throw new DecisionConflictError('approval-expired', 'approval has expired')
  if (own) throw new DecisionConflictError('already-decided', `${subject} has already decided`)
  const refusal = approverRefusal(approval, row.runCreatedBy, subject, input.subjectScopes)
  if (refusal === 'separation-of-duties') {
    throw new DecisionForbiddenError(
      'separation-of-duties',
      'the subject who started the run cannot decide its approval',
    )
  }
  if (refusal === 'not-an-approver') {
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
  const problems = decisionInputProblems(approval.inputSchema as Json | null, input.input ?? null)
  if (problems.length > 0) throw new DecisionInputError(problems)

  const approves =
    earlier.filter((d) => d.decision === 'approve').length + (input.decision === 'approve' ? 1 : 0)
  const status =
    input.decision === 'reject' ? 'rejected' : approves >= approval.required ? 'approved' : null
  const { recorded, settledRow } = await insertDecision(tx, {
    approvalId,
    subject,
    decision: input.decision,
    comment: input.comment ?? null,
    input: input.input ?? null,
    idempotencyKey: key,
    requestHash: key === null ? null : (input.requestHash ?? null),
    settleAs: status,
    record: onRecord ? recordOf(approval, input, status, onRecord) : null,
  })
  const decisions = inDecisionOrder([...earlier, recorded])
  if (status === null) {
    return {
      approval: { ...approval, decisions },
      decision: recorded,
      settled: null,
      didSettle: false,
      replayed: false,
    }
  }
  // The row lock above makes this compare-and-set succeed; it guards a path that skipped it.
  if (!settledRow) throw new DecisionConflictError('approval-settled', 'approval already settled')
  // The decisions as withDecisions would read them again: no other transaction can add one to
  // this approval while its row is locked (the insert's foreign key check waits for the lock).
  const settledApproval: Approval = { ...settledRow, decisions }
  return {
    approval: settledApproval,
    decision: recorded,
    settled: decisionRecord(settledApproval),
    didSettle: true,
    replayed: false,
  }
}

/**
 * Decisions in withDecisions' order, `order by at, id`: `at` is a `timestamptz(3)`, so its Date
 * is the stored value, and a UUID's canonical lowercase text sorts as its bytes do. The new
 * decision's `at` is its transaction's start, which can be earlier than a decision committed by
 * a transaction that took the lock first (approvals.int.test.ts).
 */
function inDecisionOrder(decisions: ApprovalDecisionRow[]): ApprovalDecisionRow[] {
  return decisions.sort(
    (a, b) => a.at.getTime() - b.at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )
}

/**
 * Why a decision's input cannot be recorded: a top-level `__` key (the engine's reserved
 * prefix), or a mismatch with the approval step's `schema`; paths point into the input.
 */
export function decisionInputProblems(
  schema: Json | null,
  input: Json | null,
): Array<{ path: string; message: string }> {
  if (input === null) return []
  const problems: Array<{ path: string; message: string }> = []
  if (typeof input === 'object' && !Array.isArray(input)) {
    for (const key of Object.keys(input)) {
      if (key.startsWith('__')) {
        problems.push({ path: toPointer([key]), message: `"${key}" uses the reserved "__" prefix` })
      }
    }
  }
  if (schema !== null) problems.push(...validateAgainstSchema(schema, input))
  return problems
}

/** A decision's run event and audit event, as {@link insertDecision} appends them. */
interface DecisionRecordWrites {
  runId: string
  event: RunEventData<'approval.decided'>
  audit: AuditInput
}

function recordOf(
  approval: Pick<ApprovalRow, 'id' | 'runId' | 'step'>,
  input: DecideApprovalInput,
  settleAs: 'approved' | 'rejected' | null,
  onRecord: DecisionOnRecord,
): DecisionRecordWrites {
  const event = {
    approvalId: approval.id,
    step: approval.step,
    // A decision leaves the approval pending (short of its quorum), approved or rejected.
    status: settleAs ?? ('pending' as const),
    by: input.subject,
    decision: input.decision,
    comment: input.comment ?? null,
  }
  return {
    runId: approval.runId,
    event,
    audit: {
      actor: input.subject,
      action: onRecord.action,
      target: { kind: 'approval', id: approval.id },
      context: onRecord.context,
      details: { ...event, runId: approval.runId, ...onRecord.details },
    },
  }
}

/**
 * Inserts the decision and, when it settles the approval (`settleAs`), moves the approval from
 * pending to that status, in one statement: the compare-and-set's row is null when the approval
 * was no longer pending (or `settleAs` is null). With `record`, the same statement appends the
 * decision's run event and its pending audit event (chained after the commit). Every write rolls
 * back with the transaction.
 */
async function insertDecision(
  tx: TenantTx,
  d: {
    approvalId: string
    subject: string
    decision: Decision
    comment: string | null
    input: Json | null
    idempotencyKey: string | null
    requestHash: string | null
    settleAs: 'approved' | 'rejected' | null
    record: DecisionRecordWrites | null
  },
): Promise<{ recorded: ApprovalDecisionRow; settledRow: ApprovalRow | null }> {
  const input = d.input === null ? null : JSON.stringify(d.input)
  const { record } = d
  // The audit row's insert modifies data, so it runs unread; the event's call is read below.
  const onRecord = record
    ? sql`, audit as (${pendingAuditInsert(tx.tenant, record.audit).insert} returning 1),
        event as (select e.seq from ${runEventAppendCall(tx, record.runId, 'approval.decided', record.event)} e)`
    : sql``
  const { rows } = await tx.db.execute<{ decision: Record<string, unknown>; settled: unknown }>(
    sql`with decision as (
        insert into approval_decisions (tenant_id, approval_id, subject, decision, comment, input,
          idempotency_key, request_hash)
        values (${tx.tenant}, ${d.approvalId}::uuid, ${d.subject}, ${d.decision}, ${d.comment},
          ${input}::jsonb, ${d.idempotencyKey}, ${d.requestHash})
        returning *
      ), settled as (
        update approvals set status = ${d.settleAs}::text, settled_at = now()
        where tenant_id = ${tx.tenant} and id = ${d.approvalId}::uuid
          and ${rowCheck(sql`status = 'pending'`)} and ${d.settleAs}::text is not null
        returning *
      )${onRecord}
      select (select row_to_json(x) from decision x) as decision,
        (select row_to_json(x) from settled x) as settled
        ${record ? sql`, (select seq from event) as event_seq` : sql``}`,
  )
  if (record) chainAuditAfterCommit(tx)
  const row = rows[0]!
  return {
    recorded: tableRow<ApprovalDecisionRow>(DECISION_COLUMNS, row.decision),
    settledRow:
      row.settled === null
        ? null
        : tableRow<ApprovalRow>(APPROVAL_COLUMNS, row.settled as Record<string, unknown>),
  }
}
