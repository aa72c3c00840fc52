import type { Json } from '@weave/kernel'
import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import type { ApprovalRow } from './approval-rows.js'
import { cancelRunApprovals } from './approvals.js'
import type { TenantTx } from './client.js'
import { asList, decodeTimeCursor, olderThan, pageSize, toPage } from './cursor.js'
import { IdempotencyConflictError } from './errors.js'
import type { Page, PageOptions } from './page.js'
import { type RunStatus, runs } from './schema/runs.js'
import { isUuid } from './uuid.js'

/** A run row. */
export type RunRow = typeof runs.$inferSelect

/** What a waiting run waits for, e.g. `{ kind: 'approval', step, approvalId }`. */
export interface WaitingOn {
  kind: string
  step: string
  [key: string]: Json
}

/** Statuses after which a run does nothing more by itself. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled']

/** How long an idempotency key returns its original run (API.md: 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** What `createRun` stores. */
export interface CreateRunInput {
  /** Id of the new run (default: a random UUID). */
  id?: string
  graphName: string
  graphVersion: number
  input: Json
  createdBy: string
  idempotencyKey?: string | null
  /** Hash of the request body (e.g. `hashJson(body)`), compared when the key is reused. */
  requestHash?: string | null
  forkedFrom?: string | null
  forkedSeq?: number | null
  /** Age after which a key no longer returns its original run (default `IDEMPOTENCY_TTL_MS`). */
  idempotencyTtlMs?: number
}

/** A created run, or the one an idempotency key already names (`created: false`). */
export interface CreatedRun {
  run: RunRow
  created: boolean
}

/**
 * Inserts a `queued` run. With an idempotency key already used less than the TTL ago, returns
 * that run (`created: false`) when the request hash matches; an older key is released and a new
 * run created. The caller resolves the graph version first: a version that does not exist fails
 * the foreign key (runs.int.test.ts).
 * @throws IdempotencyConflictError when the key was used with another request hash.
 */
export async function createRun(tx: TenantTx, input: CreateRunInput): Promise<CreatedRun> {
  const key = input.idempotencyKey ?? null
  const values = {
    ...(input.id === undefined ? {} : { id: input.id }),
    tenantId: tx.tenant,
    graphName: input.graphName,
    graphVersion: input.graphVersion,
    input: input.input,
    createdBy: input.createdBy,
    idempotencyKey: key,
    requestHash: input.requestHash ?? null,
    forkedFrom: input.forkedFrom ?? null,
    forkedSeq: input.forkedSeq ?? null,
  }
  if (key === null) {
    const [run] = await tx.db.insert(runs).values(values).returning()
    return { run: run as RunRow, created: true }
  }
  for (;;) {
    const [run] = await tx.db
      .insert(runs)
      .values(values)
      .onConflictDoNothing({
        target: [runs.tenantId, runs.idempotencyKey],
        where: sql`idempotency_key is not null`,
      })
      .returning()
    if (run) return { run, created: true }
    const [existing] = await tx.db
      .select()
      .from(runs)
      .where(and(eq(runs.tenantId, tx.tenant), eq(runs.idempotencyKey, key)))
      .for('no key update')
    // Released between our insert and select by a concurrent expiry: try the insert again.
    if (!existing) continue
    const ttl = input.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS
    if (Date.now() - existing.createdAt.getTime() >= ttl) {
      await tx.db.update(runs).set({ idempotencyKey: null }).where(eq(runs.id, existing.id))
      continue
    }
    if (existing.requestHash !== (input.requestHash ?? null)) {
      throw new IdempotencyConflictError(key, existing.id)
    }
    return { run: existing, created: false }
  }
}

/** The run, or null (also for an id that is not a UUID). */
export async function getRun(tx: TenantTx, id: string): Promise<RunRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select()
    .from(runs)
    .where(and(eq(runs.tenantId, tx.tenant), eq(runs.id, id)))
  return row ?? null
}

/** Options of `listRuns`. */
export interface ListRunsOptions extends PageOptions {
  status?: RunStatus | RunStatus[]
  graph?: string
}

/**
 * The tenant's runs, newest first, optionally filtered by status and graph name.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listRuns(tx: TenantTx, options: ListRunsOptions = {}): Promise<Page<RunRow>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  const statuses = asList(options.status)
  const rows = await tx.db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        statuses ? inArray(runs.status, statuses) : undefined,
        options.graph === undefined ? undefined : eq(runs.graphName, options.graph),
        olderThan(runs.createdAt, runs.id, after),
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit + 1)
  return toPage(rows, limit, (r) => [r.createdAt.toISOString(), r.id])
}

/** Fields a transition may change besides the status. */
export interface RunPatch {
  stopReason?: string | null
  lastStep?: string | null
  /** Sets the step count. */
  steps?: number
  /** Adds to the step count (steps started by one kernel invocation). */
  addSteps?: number
  error?: Json | null
  /** What the run waits for; only kept when the new status is `waiting`. */
  waitingOn?: WaitingOn | null
}

/**
 * Moves a run to `to` only if its status is one of `from` (a compare-and-set), so late or
 * duplicate jobs cannot move it backwards. Sets `updated_at`; sets `finished_at` when `to` is
 * terminal and clears it otherwise; clears `waiting_on` unless `to` is `waiting`. Returns the
 * updated run, or null when the run is missing or in another status (runs.int.test.ts).
 */
export async function transitionRun(
  tx: TenantTx,
  id: string,
  from: readonly RunStatus[],
  to: RunStatus,
  patch: RunPatch = {},
): Promise<RunRow | null> {
  if (!isUuid(id) || from.length === 0) return null
  const isTerminal = TERMINAL_RUN_STATUSES.includes(to)
  const [row] = await tx.db
    .update(runs)
    .set({
      status: to,
      updatedAt: sql`now()`,
      finishedAt: isTerminal ? sql`now()` : null,
      ...(patch.stopReason === undefined ? {} : { stopReason: patch.stopReason }),
      ...(patch.lastStep === undefined ? {} : { lastStep: patch.lastStep }),
      ...(patch.steps === undefined ? {} : { steps: patch.steps }),
      ...(patch.addSteps === undefined ? {} : { steps: sql`${runs.steps} + ${patch.addSteps}` }),
      ...(patch.error === undefined ? {} : { error: patch.error }),
      ...(to !== 'waiting'
        ? { waitingOn: null }
        : patch.waitingOn === undefined
          ? {}
          : { waitingOn: patch.waitingOn }),
    })
    .where(and(eq(runs.tenantId, tx.tenant), eq(runs.id, id), inArray(runs.status, [...from])))
    .returning()
  return row ?? null
}

/**
 * Moves a run to `running` for the job `jobId` when its status is one of `from`, or when it is
 * already `running` under that same job (a job retaken after its worker died). Another job can
 * never take a running run, so one run is never executed twice at once (runs.int.test.ts).
 */
export async function claimRun(
  tx: TenantTx,
  id: string,
  from: readonly RunStatus[],
  jobId: string,
): Promise<RunRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(runs)
    .set({
      status: 'running',
      leaseJob: jobId,
      updatedAt: sql`now()`,
      finishedAt: null,
      error: null,
    })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        or(
          from.length > 0 ? inArray(runs.status, [...from]) : undefined,
          and(eq(runs.status, 'running'), eq(runs.leaseJob, jobId)),
        ),
      ),
    )
    .returning()
  return row ?? null
}

/**
 * Hands a `running` run whose job was lost to a new job, if it is still held by `expectedJob`
 * (a compare-and-set, so two reconcilers cannot both take it over).
 */
export async function takeOverRunLease(
  tx: TenantTx,
  id: string,
  expectedJob: string | null,
  newJob: string,
): Promise<RunRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(runs)
    .set({ leaseJob: newJob, updatedAt: sql`now()` })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        eq(runs.status, 'running'),
        expectedJob === null ? isNull(runs.leaseJob) : eq(runs.leaseJob, expectedJob),
      ),
    )
    .returning()
  return row ?? null
}

/** Result of `requestRunCancel`. */
export interface CancelRequest {
  run: RunRow
  /** True when the run was queued or waiting and is now `cancelled`. */
  cancelledNow: boolean
  /** The run's approvals this call moved from pending to `cancelled`. */
  cancelledApprovals: ApprovalRow[]
}

/**
 * Asks a run to stop: a queued or waiting run becomes `cancelled` at once; a running one gets
 * `cancel_requested` and stops at its next step boundary; a finished run is left as it is. The
 * run's pending approvals become `cancelled`. Returns null when the run does not exist.
 */
export async function requestRunCancel(tx: TenantTx, id: string): Promise<CancelRequest | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(runs)
    .set({
      cancelRequested: true,
      status: sql`case when ${runs.status} in ('queued', 'waiting') then 'cancelled' else ${runs.status} end`,
      finishedAt: sql`case when ${runs.status} in ('queued', 'waiting') then now() else ${runs.finishedAt} end`,
      waitingOn: sql`case when ${runs.status} in ('queued', 'waiting') then null else ${runs.waitingOn} end`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        inArray(runs.status, ['queued', 'running', 'waiting']),
      ),
    )
    .returning()
  if (row) {
    const cancelledNow = row.status === 'cancelled'
    const cancelledApprovals = cancelledNow ? await cancelRunApprovals(tx, id) : []
    return { run: row, cancelledNow, cancelledApprovals }
  }
  const run = await getRun(tx, id)
  return run ? { run, cancelledNow: false, cancelledApprovals: [] } : null
}

/**
 * Sets what a run waits for without changing its status. Returns the run, or null when missing.
 */
export async function setRunWaitingOn(
  tx: TenantTx,
  id: string,
  waitingOn: WaitingOn | null,
): Promise<RunRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(runs)
    .set({ waitingOn, updatedAt: sql`now()` })
    .where(and(eq(runs.tenantId, tx.tenant), eq(runs.id, id)))
    .returning()
  return row ?? null
}
