import type { Json } from '@weave/kernel'
import { toPointer, validateAgainstSchema } from '@weave/spec'
import { sql } from 'drizzle-orm'
import { type AuditContext, type AuditInput, pendingAuditRow } from '../audit.js'
import type { TenantTx } from '../client.js'
import {
  DecisionConflictError,
  DecisionForbiddenError,
  DecisionInputError,
  IdempotencyConflictError,
  NotFoundError,
} from '../errors.js'
import { type RunEventData, runEventData } from '../run-events.js'
import type { Decision } from '../schema/approvals.js'
import { TRACE_PARENT_SETTING } from '../schema/roles.js'
import { tableRow } from '../table-row.js'
import { activeTraceParent } from '../trace-parent.js'
import { isUuid } from '../uuid.js'
import {
  APPROVAL_COLUMNS,
  DECISION_COLUMNS,
  readApprovalForDecision,
} from './approval-for-decision.js'
import type { Approval, ApprovalDecisionRow, ApprovalRow } from './approval-rows.js'
import { approverRefusal } from './approver-rule.js'
import { type DecisionRecord, decisionRecord } from './decision-record.js'
import { type DecisionStatements, decisionInTransaction } from './decision-statements.js'

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
  /**
   * Another approval opened with this one (the calls of one agent turn) is still pending: the
   * run resumes only once none is. For a decision that settled the approval, read under the
   * run's lock, so of two decisions settling the last two approvals of a turn exactly one sees
   * none.
   */
  pendingSibling: boolean
}

/**
 * The one way to decide an approval, whatever the path (API, approval link). Checked in order:
 * the approval exists; a replay of this subject's own earlier decision under the same
 * idempotency key answers as it did; it is pending and not past `expires_at`; the subject has not
 * decided it; the approver rule (approver-rule.ts: separation of duties, named approvers or
 * scopes; the run's starter is read here, not trusted from the caller); a given `materialHash`
 * equals the approval's; the input holds no `__` key and satisfies the step's schema. Then the
 * decision is inserted, and one rejection or `required` approvals from distinct subjects settle
 * it, so concurrent deciders settle it once (approvals.int.test.ts).
 *
 * The checks run on a read without locks; the write (weave_decide_approval) takes the run's and
 * the approval's locks and records the decision only if the approval is still as read. When it
 * is not (another decision landed, or it settled or expired), the decision is read and checked
 * again: each retry follows a change that brings the approval closer to settled, so they end.
 * `statements` is a tenant's transaction (TenantTx) or a DecisionStatements (decisionOnPool).
 * @throws NotFoundError `approval-not-found`.
 * @throws DecisionConflictError `approval-settled`, `approval-expired`, `already-decided` or
 *   `material-mismatch`; IdempotencyConflictError for a key reused with another body.
 * @throws DecisionForbiddenError `separation-of-duties` or `not-an-approver`.
 * @throws DecisionInputError `decision-input-invalid`, listing every problem with its path.
 */
export async function decideApproval(
  statements: TenantTx | DecisionStatements,
  input: DecideApprovalInput,
  onRecord?: DecisionOnRecord,
): Promise<DecideApprovalResult> {
  const target = 'execute' in statements ? statements : decisionInTransaction(statements)
  for (let attempt = 1; ; attempt++) {
    const result = await decideOnce(target, input, onRecord)
    if (result !== 'changed') return result
    // Unreachable unless the write's check and the read disagree for good: a bug, not a race.
    if (attempt === MAX_ATTEMPTS) {
      throw new Error(`approval ${input.approvalId}: it changed under ${attempt} decisions`)
    }
  }
}

// A retry follows a new decision on the approval or its one change of status, and an approval
// settles after at most 100 decisions (a step's `required` is at most 100): past this bound the
// write's check and the read disagree for good.
const MAX_ATTEMPTS = 200

async function decideOnce(
  statements: DecisionStatements,
  input: DecideApprovalInput,
  onRecord: DecisionOnRecord | undefined,
): Promise<DecideApprovalResult | 'changed'> {
  const { approvalId, subject } = input
  const row = isUuid(approvalId) ? await readApprovalForDecision(statements, approvalId) : null
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
      pendingSibling: row.pendingSibling,
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
  const written = await writeDecision(statements, {
    approvalId,
    decisionsRead: earlier.length,
    subject,
    decision: input.decision,
    comment: input.comment ?? null,
    input: input.input ?? null,
    idempotencyKey: key,
    requestHash: key === null ? null : (input.requestHash ?? null),
    settleAs: status,
    record: onRecord ? recordOf(approval, input, status, onRecord) : null,
  })
  if (written === 'missing') throw new NotFoundError('approval', approvalId)
  if (written === 'changed') return 'changed'
  const { recorded, settledRow, pendingSibling } = written
  const decisions = inDecisionOrder([...earlier, recorded])
  if (status === null) {
    return {
      approval: { ...approval, decisions },
      decision: recorded,
      settled: null,
      didSettle: false,
      replayed: false,
      pendingSibling,
    }
  }
  // The decisions as withDecisions would read them again: the write checked, under the
  // approval's lock, that no other decision had been added since the read.
  const settledApproval: Approval = { ...settledRow!, decisions }
  return {
    approval: settledApproval,
    decision: recorded,
    settled: decisionRecord(settledApproval),
    didSettle: true,
    replayed: false,
    pendingSibling,
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

/** A decision's run event and audit event, as {@link writeDecision} appends them. */
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
 * Records the decision in one statement (weave_decide_approval, migration 0042), under the run's
 * and the approval's locks, if the approval is still pending, not expired and has the
 * `decisionsRead` decisions it had when read; else writes nothing (`changed`). When `settleAs` is
 * given it settles the approval too. With `record`, the same statement appends the decision's
 * run event and its pending audit event (chained after the commit). The active span's
 * traceparent is set first, as withTenant sets it: a webhook delivery the event makes continues
 * the request's trace.
 */
async function writeDecision(
  statements: DecisionStatements,
  d: {
    approvalId: string
    decisionsRead: number
    subject: string
    decision: Decision
    comment: string | null
    input: Json | null
    idempotencyKey: string | null
    requestHash: string | null
    settleAs: 'approved' | 'rejected' | null
    record: DecisionRecordWrites | null
  },
): Promise<
  | 'changed'
  | 'missing'
  | { recorded: ApprovalDecisionRow; settledRow: ApprovalRow | null; pendingSibling: boolean }
> {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value))
  const { record } = d
  const event = record ? runEventData('approval.decided', record.event) : null
  const audit = record ? pendingAuditRow(statements.tenant, record.audit) : null
  const [row] = await statements.execute<{ result: DecisionWrite }>(
    sql`with trace as materialized (
          select set_config(${TRACE_PARENT_SETTING}, ${activeTraceParent() ?? ''}, true))
        select weave_decide_approval(${statements.tenant}, ${d.approvalId}::uuid,
          ${d.decisionsRead}::int, ${d.subject}, ${d.decision}, ${d.comment},
          ${json(d.input)}::jsonb, ${d.idempotencyKey}, ${d.requestHash}, ${d.settleAs}::text,
          ${json(event)}::jsonb, ${json(audit)}::jsonb) as result
        from trace`,
  )
  const result = row!.result
  if (result.outcome !== 'recorded') return result.outcome
  if (audit) statements.chainAuditAfterCommit()
  return {
    recorded: tableRow<ApprovalDecisionRow>(DECISION_COLUMNS, result.decision),
    settledRow:
      result.settled === null ? null : tableRow<ApprovalRow>(APPROVAL_COLUMNS, result.settled),
    pendingSibling: result.has_pending_sibling,
  }
}

/** What weave_decide_approval returns. */
type DecisionWrite =
  | { outcome: 'changed' | 'missing' }
  | {
      outcome: 'recorded'
      decision: Record<string, unknown>
      settled: Record<string, unknown> | null
      has_pending_sibling: boolean
    }
