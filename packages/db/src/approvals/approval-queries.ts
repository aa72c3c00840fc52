import type { Json } from '@weave/kernel'
import { and, asc, eq, inArray, lte, ne, sql, type SQL } from 'drizzle-orm'
import type { TenantTx } from '../client.js'
import { asList, decodeTimeCursor, newestFirst, olderThan, pageSize, toPage } from '../cursor.js'
import { approvalMaterialHash } from '@weave/spec'
import type { Page, PageOptions } from '../page.js'
import { rowCheck } from '../row-check.js'
import {
  type Approval,
  type ApprovalRow,
  lockRun,
  lockRunOfApproval,
  withDecisions,
} from './approval-rows.js'
import { type ApprovalStatus, type Approvers, approvals } from '../schema/approvals.js'
import { isUuid } from '../uuid.js'

export type { Approval, ApprovalDecisionRow, ApprovalRow } from './approval-rows.js'

export { approvalMaterialHash } from '@weave/spec'

/** What `openApproval` stores; the material hash is computed from title and details. */
export interface OpenApprovalInput {
  runId: string
  step: string
  /** The step's seq in its kernel run when it yielded. */
  seq: number
  /** The agent tool call the approval is about; absent for an approval step. */
  callId?: string
  /** The root run's checkpoint seq while it waits on the approval (default `seq`). */
  rootSeq?: number
  title: string
  details?: Json | null
  approvers?: Approvers
  required?: number
  separationOfDuties?: boolean
  /** State key the outcome is saved under (default: the step name). */
  saveAs?: string
  onTimeout?: 'expire' | 'fail'
  expiresAt?: Date | null
  /** JSON Schema every decision's `input` must satisfy. */
  inputSchema?: Json | null
}

/** The approval for (run, step, seq, call); `created` is false when it was already open. */
export interface OpenedApproval {
  approval: Approval
  created: boolean
}

/**
 * Opens the approval of a run's approval step at checkpoint `seq` (or of one tool call of an
 * agent step). Idempotent: re-opening the same (run, step, seq, call), as a retried job does,
 * returns the existing approval unchanged.
 * @throws NotFoundError when the run does not exist in this tenant.
 */
export async function openApproval(
  tx: TenantTx,
  input: OpenApprovalInput,
): Promise<OpenedApproval> {
  await lockRun(tx, input.runId)
  const details = input.details ?? null
  const [row] = await tx.db
    .insert(approvals)
    .values({
      tenantId: tx.tenant,
      runId: input.runId,
      step: input.step,
      seq: input.seq,
      callId: input.callId ?? '',
      title: input.title,
      details,
      materialHash: approvalMaterialHash(input.title, details),
      approvers: input.approvers ?? {},
      required: input.required ?? 1,
      separationOfDuties: input.separationOfDuties ?? false,
      saveAs: input.saveAs ?? input.step,
      onTimeout: input.onTimeout ?? 'expire',
      expiresAt: input.expiresAt ?? null,
      rootSeq: input.rootSeq ?? input.seq,
      inputSchema: input.inputSchema ?? null,
    })
    .onConflictDoNothing({
      target: [approvals.runId, approvals.step, approvals.seq, approvals.callId],
    })
    .returning()
  if (row) return { approval: { ...row, decisions: [] }, created: true }
  const [existing] = await tx.db
    .select()
    .from(approvals)
    .where(isAskedAt(tx, { ...input, callId: input.callId ?? '' }))
  const found = existing as ApprovalRow
  return { approval: (await withDecisions(tx, [found]))[0] as Approval, created: false }
}

/** The approval with its decisions, or null (also for an id that is not a UUID). */
export async function getApproval(tx: TenantTx, id: string): Promise<Approval | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select()
    .from(approvals)
    .where(and(eq(approvals.tenantId, tx.tenant), eq(approvals.id, id)))
  return row ? ((await withDecisions(tx, [row]))[0] as Approval) : null
}

/**
 * The approval of one agent tool call: the call `callId` that step `step` of run `runId` asked
 * about at seq `seq`, or null.
 */
export async function getCallApproval(
  tx: TenantTx,
  query: { runId: string; step: string; seq: number; callId: string },
): Promise<Approval | null> {
  if (!isUuid(query.runId) || query.callId === '') return null
  const [row] = await tx.db.select().from(approvals).where(isAskedAt(tx, query))
  return row ? ((await withDecisions(tx, [row]))[0] as Approval) : null
}

/** The tenant's approval asked at one place: run, step, seq and call ('' for an approval step). */
function isAskedAt(
  tx: TenantTx,
  at: { runId: string; step: string; seq: number; callId: string },
): SQL | undefined {
  return and(
    eq(approvals.tenantId, tx.tenant),
    eq(approvals.runId, at.runId),
    eq(approvals.step, at.step),
    eq(approvals.seq, at.seq),
    eq(approvals.callId, at.callId),
  )
}

/**
 * Whether another approval opened with `approval` (the calls of one agent turn, asked about
 * together) is still pending: the run resumes only once every one of them is settled. Callers
 * hold the run's row lock, so of two decisions settling the last two, exactly one sees none.
 */
export async function hasPendingSibling(tx: TenantTx, approval: ApprovalRow): Promise<boolean> {
  if (approval.callId === '') return false
  const [row] = await tx.db
    .select({ id: approvals.id })
    .from(approvals)
    .where(
      and(
        eq(approvals.tenantId, tx.tenant),
        eq(approvals.runId, approval.runId),
        eq(approvals.step, approval.step),
        eq(approvals.seq, approval.seq),
        rowCheck(eq(approvals.status, 'pending')),
        ne(approvals.id, approval.id),
      ),
    )
    .limit(1)
  return row !== undefined
}

/** Options of `listApprovals`. */
export interface ListApprovalsOptions extends PageOptions {
  status?: ApprovalStatus | ApprovalStatus[]
  runId?: string
}

/**
 * The tenant's approvals with their decisions, newest first, filtered by status and run.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listApprovals(
  tx: TenantTx,
  options: ListApprovalsOptions = {},
): Promise<Page<Approval>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  if (options.runId !== undefined && !isUuid(options.runId)) return { items: [], nextCursor: null }
  const statuses = asList(options.status)
  const rows = await tx.db
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.tenantId, tx.tenant),
        statuses ? inArray(approvals.status, statuses) : undefined,
        options.runId === undefined ? undefined : eq(approvals.runId, options.runId),
        olderThan(approvals.createdAt, approvals.id, after),
      ),
    )
    .orderBy(...newestFirst(approvals.createdAt, approvals.id))
    .limit(limit + 1)
  const page = toPage(rows, limit, (a) => [a.createdAt.toISOString(), a.id])
  return { items: await withDecisions(tx, page.items), nextCursor: page.nextCursor }
}

/**
 * Marks a pending approval `expired` (its timeout passed). Returns the approval, or null when it
 * is missing or no longer pending, so a late or repeated timer does nothing.
 */
export async function expireApproval(tx: TenantTx, id: string): Promise<ApprovalRow | null> {
  return settleFromPending(tx, id, 'expired')
}

/** Marks a pending approval `cancelled`. Returns it, or null when missing or not pending. */
export async function cancelApproval(tx: TenantTx, id: string): Promise<ApprovalRow | null> {
  return settleFromPending(tx, id, 'cancelled')
}

/** Cancels every pending approval of a run (the run was cancelled); returns those approvals. */
export async function cancelRunApprovals(tx: TenantTx, runId: string): Promise<ApprovalRow[]> {
  if (!isUuid(runId)) return []
  return tx.db
    .update(approvals)
    .set({ status: 'cancelled', settledAt: sql`now()` })
    .where(
      and(
        eq(approvals.tenantId, tx.tenant),
        eq(approvals.runId, runId),
        rowCheck(eq(approvals.status, 'pending')),
      ),
    )
    .returning()
}

async function settleFromPending(
  tx: TenantTx,
  id: string,
  status: 'expired' | 'cancelled',
): Promise<ApprovalRow | null> {
  if (!isUuid(id)) return null
  await lockRunOfApproval(tx, id)
  const [row] = await tx.db
    .update(approvals)
    .set({ status, settledAt: sql`now()` })
    .where(
      and(
        eq(approvals.tenantId, tx.tenant),
        eq(approvals.id, id),
        rowCheck(eq(approvals.status, 'pending')),
      ),
    )
    .returning()
  return row ?? null
}

/**
 * The approved approvals of a run's own steps (not a subgraph's) whose step completed at or
 * before root checkpoint `seq`, oldest first: what a fork at `seq` or a retry has been
 * approved to do, and so must not change without asking again.
 */
export async function approvalsUsedUpTo(
  tx: TenantTx,
  runId: string,
  seq: number,
): Promise<ApprovalRow[]> {
  if (!isUuid(runId)) return []
  return tx.db
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.tenantId, tx.tenant),
        eq(approvals.runId, runId),
        eq(approvals.status, 'approved'),
        lte(approvals.consumedSeq, seq),
        sql`position('/' in ${approvals.step}) = 0`,
      ),
    )
    .orderBy(asc(approvals.consumedSeq))
}
