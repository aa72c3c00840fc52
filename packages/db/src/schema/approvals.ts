import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'
import { runs } from './runs.js'

/** Every status an approval can have. */
export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'cancelled',
] as const

/** An approval's status. */
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]

/** What happens when an approval's timeout passes (docs/graph-spec.md `onTimeout`). */
export const APPROVAL_ON_TIMEOUT = ['expire', 'fail'] as const

/** Both decisions a subject can make. */
export const DECISIONS = ['approve', 'reject'] as const

/** A decision. */
export type Decision = (typeof DECISIONS)[number]

/** Who may decide an approval: anyone with `approvals:decide` when both lists are absent. */
export interface Approvers {
  subjects?: string[]
  scopes?: string[]
}

const inList = (column: string, values: readonly string[]) =>
  sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`)

/** An approval opened by a run's approval step at one checkpoint. */
export const approvals = pgTable(
  'approvals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
    step: text('step').notNull(),
    seq: integer('seq').notNull(),
    // The agent tool call the approval is about ('' for an approval step): the calls of one
    // assistant turn are asked about together, one approval each, at the same (run, step, seq).
    callId: text('call_id').notNull().default(''),
    // The run's checkpoint seq while it waits on this approval (where a fork asks it again).
    rootSeq: integer('root_seq'),
    status: text('status', { enum: APPROVAL_STATUSES }).notNull().default('pending'),
    title: text('title').notNull(),
    details: jsonb('details'),
    materialHash: text('material_hash').notNull(),
    approvers: jsonb('approvers').$type<Approvers>().notNull().default({}),
    required: integer('required').notNull().default(1),
    separationOfDuties: boolean('separation_of_duties').notNull().default(false),
    saveAs: text('save_as').notNull(),
    onTimeout: text('on_timeout', { enum: APPROVAL_ON_TIMEOUT }).notNull().default('expire'),
    // JSON Schema a decision's `input` must satisfy; null: any JSON object.
    inputSchema: jsonb('input_schema'),
    // The run checkpoint whose step used this settled approval; set once, in that step's
    // transaction, so one decision completes one step.
    consumedSeq: integer('consumed_seq'),
    expiresAt: timestamptz('expires_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    settledAt: timestamptz('settled_at'),
  },
  (t) => [
    // A re-opened suspension of the same step at the same checkpoint finds its approvals.
    unique('approvals_run_step_seq_call').on(t.runId, t.step, t.seq, t.callId),
    check('approvals_status_check', inList('status', APPROVAL_STATUSES)),
    check('approvals_on_timeout_check', inList('on_timeout', APPROVAL_ON_TIMEOUT)),
    check('approvals_required_check', sql`required >= 1`),
    index('approvals_tenant_created').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    // A tenant's approvals in one status (the pending ones an approver lists), newest first: a
    // page is read in the index's order.
    index('approvals_tenant_status_created').on(
      t.tenantId,
      t.status,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    // The reconciler's cross-tenant scan (weave_overdue_approvals).
    index('approvals_pending_expiry')
      .on(t.expiresAt)
      .where(sql`status = 'pending' and expires_at is not null`),
    // Settled approvals whose step has not used them yet: the reconciler resumes their runs.
    index('approvals_settled_unconsumed')
      .on(t.settledAt, t.id)
      .where(sql`status in ('approved', 'rejected', 'expired') and consumed_seq is null`),
    tenantIsolation(),
  ],
)

/** One subject's decision on an approval; a subject decides an approval at most once. */
export const approvalDecisions = pgTable(
  'approval_decisions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    approvalId: uuid('approval_id')
      .notNull()
      .references(() => approvals.id),
    subject: text('subject').notNull(),
    decision: text('decision', { enum: DECISIONS }).notNull(),
    comment: text('comment'),
    input: jsonb('input'),
    // A retried request with the same key and body answers as the first did.
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    at: timestamptz('at').notNull().defaultNow(),
  },
  (t) => [
    unique('approval_decisions_approval_subject').on(t.approvalId, t.subject),
    check('approval_decisions_decision_check', inList('decision', DECISIONS)),
    tenantIsolation(),
  ],
)
