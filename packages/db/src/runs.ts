import type { Json } from '@weave/kernel'
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import type { ApprovalRow } from './approvals/approval-rows.js'
import { cancelRunApprovals } from './approvals/approval-queries.js'
import type { TenantTx } from './client.js'
import {
  type ConcurrencyKey,
  lockConcurrencyKey,
  lockConcurrencyKeyOfHeldRun,
  placeConcurrencyRun,
} from './concurrency-keys.js'
import { asList, decodeTimeCursor, newestFirst, olderThan, pageSize, toPage } from './cursor.js'
import { IdempotencyConflictError } from './errors.js'
import type { Page, PageOptions } from './page.js'
import type { PendingResume } from './protocol/pending-resume.js'
import type { WaitingOn } from './protocol/waiting-on.js'
import { rowCheck } from './row-check.js'
import { type RunStatus, runs } from './schema/runs.js'
import { isUuid } from './uuid.js'

export * from './concurrency-keys.js'
export { PendingResume, readPendingResume } from './protocol/pending-resume.js'
export {
  ApprovalWait,
  InputWait,
  TimerWait,
  WaitingOn,
  readWaitingOn,
} from './protocol/waiting-on.js'

/** A run row. */
export type RunRow = typeof runs.$inferSelect

/** Statuses after which a run does nothing more by itself. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled']

/** How long an idempotency key returns its original run (docs/http-api.md: 24 h). */
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
  /** A thread's run: its thread, its number there, and the run whose state it starts from. */
  thread?: { id: string; seq: number; baseRunId: string | null; held: boolean }
  /** The schedule whose firing starts the run. */
  scheduleId?: string | null
  /**
   * A plain run's concurrency key: the run waits in the key's line (`held`) while `limit` runs
   * of the key hold a slot (concurrency-keys.ts).
   */
  concurrency?: ConcurrencyKey | null
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
  const concurrency = input.concurrency ?? null
  // A replay is answered before the key's lock is taken: the lock is never held while waiting
  // for a run's row, which an end holds while it waits for the lock.
  if (key !== null && concurrency !== null) {
    const replay = await findReplay(tx, key, input)
    if (replay) return { run: replay, created: false }
  }
  const placed = concurrency ? await placeConcurrencyRun(tx, concurrency) : null
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
    threadId: input.thread?.id ?? null,
    threadSeq: input.thread?.seq ?? null,
    baseRunId: input.thread?.baseRunId ?? null,
    held: input.thread?.held ?? placed?.held ?? false,
    scheduleId: input.scheduleId ?? null,
    concurrencyKey: concurrency?.key ?? null,
    concurrencyLimit: concurrency?.limit ?? null,
    concurrencySeq: placed?.seq ?? null,
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
    const replay = await findReplay(tx, key, input)
    if (replay) return { run: replay, created: false }
  }
}

/**
 * The run an idempotency key names, locked, when a start with that key is a replay of it; null
 * when the key is free (never used, or released here because it expired).
 * @throws IdempotencyConflictError when the key was used with another request hash.
 */
async function findReplay(
  tx: TenantTx,
  key: string,
  input: CreateRunInput,
): Promise<RunRow | null> {
  const [existing] = await tx.db
    .select()
    .from(runs)
    .where(and(eq(runs.tenantId, tx.tenant), eq(runs.idempotencyKey, key)))
    .for('no key update')
  // Released between an insert and this select by a concurrent expiry: the insert is tried again.
  if (!existing) return null
  const ttl = input.idempotencyTtlMs ?? IDEMPOTENCY_TTL_MS
  if (Date.now() - existing.createdAt.getTime() >= ttl) {
    await tx.db.update(runs).set({ idempotencyKey: null }).where(eq(runs.id, existing.id))
    return null
  }
  if (existing.requestHash !== (input.requestHash ?? null)) {
    throw new IdempotencyConflictError(key, existing.id)
  }
  return existing
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

/**
 * The run, locked until the transaction ends (`FOR NO KEY UPDATE`), or null: what a claim reads
 * before it takes the run, so no request changes it in between.
 */
export async function getRunForUpdate(tx: TenantTx, id: string): Promise<RunRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select()
    .from(runs)
    .where(and(eq(runs.tenantId, tx.tenant), eq(runs.id, id)))
    .for('no key update')
  return row ?? null
}

/** Options of `listRuns`. */
export interface ListRunsOptions extends PageOptions {
  status?: RunStatus | RunStatus[]
  graph?: string
  concurrencyKey?: string
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
        options.concurrencyKey === undefined
          ? undefined
          : eq(runs.concurrencyKey, options.concurrencyKey),
        olderThan(runs.createdAt, runs.id, after),
      ),
    )
    .orderBy(...newestFirst(runs.createdAt, runs.id))
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

/** Conditions a transition also requires besides the run's status. */
export interface TransitionGuard {
  /**
   * The claim's fencing token: the run changes only while it is still running under this claim,
   * so an executor that lost its claim cannot finish, fail or park the run.
   */
  leaseToken?: string
}

/**
 * Moves a run to `to` only if its status is one of `from` (a compare-and-set), so late or
 * duplicate jobs cannot move it backwards; with `guard.leaseToken`, only while that claim holds
 * the run. Sets `updated_at`; sets `finished_at` when `to` is terminal and clears it otherwise;
 * clears `waiting_on` and `wake_at` unless `to` is `waiting` (a timer's `until` becomes
 * `wake_at`), and any pending resume request. Returns the updated run, or null when the run is missing, in another status or
 * held by another claim (runs.int.test.ts).
 */
export async function transitionRun(
  tx: TenantTx,
  id: string,
  from: readonly RunStatus[],
  to: RunStatus,
  patch: RunPatch = {},
  guard: TransitionGuard = {},
): Promise<RunRow | null> {
  if (!isUuid(id) || from.length === 0) return null
  const isTerminal = TERMINAL_RUN_STATUSES.includes(to)
  const wakeAt =
    to === 'waiting' && patch.waitingOn?.kind === 'wait' ? new Date(patch.waitingOn.until) : null
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
      // A resume request not applied by the time the run stops again is void.
      pendingResume: null,
      ...(to !== 'waiting'
        ? { waitingOn: null, wakeAt: null }
        : patch.waitingOn === undefined
          ? {}
          : { waitingOn: patch.waitingOn, wakeAt }),
    })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        rowCheck(inArray(runs.status, [...from])),
        guard.leaseToken === undefined ? undefined : eq(runs.leaseToken, guard.leaseToken),
      ),
    )
    .returning()
  return row ?? null
}

/**
 * Moves a run to `running` for the job `jobId` when its status is one of `from`, or when it is
 * already `running` under that same job (a job retaken after its worker died). Another job can
 * never take a running run. Every claim gets a new fencing token (`lease_token`): the executor of
 * an earlier claim, even of the same job (a stalled worker that wakes up), can no longer write a
 * checkpoint or change the run, so one run is never executed twice at once (runs.int.test.ts).
 * A pending resume request stays on the run until the first root checkpoint after it is written
 * (weave_save_step), so an executor that dies before applying it leaves it for the next claim.
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
      leaseToken: sql`gen_random_uuid()`,
      updatedAt: sql`now()`,
      finishedAt: null,
      error: null,
      waitingOn: null,
      wakeAt: null,
    })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        rowCheck(
          or(
            // A held run waits for its thread's active run to end (threads.ts).
            from.length > 0
              ? and(inArray(runs.status, [...from]), eq(runs.held, false))
              : undefined,
            and(eq(runs.status, 'running'), eq(runs.leaseJob, jobId)),
          ),
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
    // No claim holds the run until the new job takes it: a frozen executor is fenced at once.
    .set({ leaseJob: newJob, leaseToken: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        rowCheck(eq(runs.status, 'running')),
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
  // A run waiting in its concurrency key's line is locked only under the key's lock, as an
  // admission locks it (concurrency-keys.ts).
  await lockConcurrencyKeyOfHeldRun(tx, id)
  const [row] = await tx.db
    .update(runs)
    .set({
      cancelRequested: true,
      status: sql`case when ${runs.status} in ('queued', 'waiting') then 'cancelled' else ${runs.status} end`,
      finishedAt: sql`case when ${runs.status} in ('queued', 'waiting') then now() else ${runs.finishedAt} end`,
      waitingOn: sql`case when ${runs.status} in ('queued', 'waiting') then null else ${runs.waitingOn} end`,
      wakeAt: sql`case when ${runs.status} in ('queued', 'waiting') then null else ${runs.wakeAt} end`,
      pendingResume: sql`case when ${runs.status} in ('queued', 'waiting') then null else ${runs.pendingResume} end`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        rowCheck(inArray(runs.status, ['queued', 'running', 'waiting'])),
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
 * Records a client's resume of a run, as a compare-and-set: only a run waiting for input at
 * checkpoint `request.atSeq` (reason `input`) or failed at it (reason `retry`), with no resume
 * already pending, takes it; a second concurrent resume gets null, as does a run that moved on.
 */
export async function requestResume(
  tx: TenantTx,
  id: string,
  request: PendingResume,
): Promise<RunRow | null> {
  if (!isUuid(id)) return null
  if (request.reason === 'retry') {
    const run = await getRun(tx, id)
    if (run?.concurrencyKey) await lockConcurrencyKey(tx, run.concurrencyKey)
  }
  const waitsHere =
    request.reason === 'input'
      ? sql`${runs.status} = 'waiting' and ${runs.waitingOn}->>'kind' = 'input'`
      : sql`${runs.status} = 'failed'`
  const [row] = await tx.db
    .update(runs)
    .set({ pendingResume: request, updatedAt: sql`now()` })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        isNull(runs.pendingResume),
        eq(runs.checkpointSeq, request.atSeq),
        rowCheck(waitsHere),
        // A failed run of a thread is retried only while no other run of the thread is active;
        // the unique index runs_thread_one_active refuses its claim otherwise.
        request.reason === 'retry'
          ? sql`(${runs.threadId} is null or not exists (
              select 1 from runs a where a.thread_id = ${runs.threadId} and a.id <> ${runs.id}
                and not a.held and a.status in ('queued', 'running', 'waiting')))`
          : undefined,
        // A failed run of a concurrency key runs again only into a free slot with nobody in
        // line (its key is locked above, so the count holds until commit).
        request.reason === 'retry'
          ? sql`(runs.concurrency_key is null or (
              weave_concurrency_slots_taken(runs.tenant_id, runs.concurrency_key)
                < runs.concurrency_limit
              and not exists (select 1 from runs l where l.tenant_id = runs.tenant_id
                and l.concurrency_key = runs.concurrency_key and l.held and l.status = 'queued')))`
          : undefined,
      ),
    )
    .returning()
  return row ?? null
}
