import type { Json } from '@weave/kernel'
import {
  GraphSpec,
  approvalRecordKeys,
  clientStateProblems,
  validateRunInput,
  validateThreadRunInput,
  type SpecProblem,
} from '@weave/spec'
import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Database, TenantTx } from './client.js'
import { decodeTimeCursor, newestFirst, olderThan, pageSize, toPage } from './cursor.js'
import { getGraphForRun } from './graph-lookup.js'
import type { Page, PageOptions } from './page.js'
import { appendAudit } from './audit.js'
import type { SkipReason } from './protocol/tenant-events.js'
import { appendRunEvent } from './run-events.js'
import { createRun, type RunRow } from './runs.js'
import { runs } from './schema/runs.js'
import {
  type CatchUpPolicy,
  type OverlapPolicy,
  scheduleFirings,
  schedules,
  threads,
} from './schema/threads.js'
import { ACTIVE_RUN_STATUSES, latestThreadRun, lockActiveThreadRuns } from './threads.js'
import { appendTenantEvent } from './tenant-events.js'
import { startThreadRun } from './thread-runs.js'
import { isUuid } from './uuid.js'

/** A schedule row. */
export type ScheduleRow = typeof schedules.$inferSelect

/** A firing row. */
export type ScheduleFiringRow = typeof scheduleFirings.$inferSelect

/** A schedule with the key of the thread it targets (null for a graph target). */
export interface ScheduleWithThread extends ScheduleRow {
  threadKey: string | null
}

/** When a schedule fires: a cron expression in an IANA time zone, or a fixed interval. */
export type ScheduleTiming = { cron: string; timezone: string } | { everyMs: number }

/** The timing of a stored schedule. */
export function timingOf(schedule: ScheduleRow): ScheduleTiming {
  return schedule.cron !== null
    ? { cron: schedule.cron, timezone: schedule.timezone ?? 'UTC' }
    : { everyMs: schedule.everyMs as number }
}

/**
 * Where the job schedulers that fire schedules live (BullMQ's, in @weave/queue). Postgres holds
 * the schedules; these are a copy that the reconciler rebuilds when Redis loses it.
 */
export interface ScheduleTimers {
  /** Creates or replaces the job scheduler of a schedule; its first tick is after `from`. */
  setScheduleTimer(schedule: ScheduleRow, from?: Date): Promise<void>
  /** Removes the job scheduler of a schedule (a no-op when it has none). */
  removeScheduleTimer(scheduleId: string): Promise<void>
  /** True when Redis holds the job scheduler of the schedule. */
  hasScheduleTimer(scheduleId: string): Promise<boolean>
}

/** What `createSchedule` stores. */
export interface CreateScheduleInput {
  graphName: string
  graphVersion: number | null
  threadId: string | null
  input: Json
  timing: ScheduleTiming
  overlap: OverlapPolicy
  catchUp: CatchUpPolicy
  paused: boolean
  createdBy: string
}

/** Stores a new schedule. */
export async function createSchedule(
  tx: TenantTx,
  input: CreateScheduleInput,
): Promise<ScheduleRow> {
  const timing = input.timing
  const [row] = await tx.db
    .insert(schedules)
    .values({
      tenantId: tx.tenant,
      graphName: input.graphName,
      graphVersion: input.graphVersion,
      threadId: input.threadId,
      input: input.input,
      cron: 'cron' in timing ? timing.cron : null,
      timezone: 'cron' in timing ? timing.timezone : null,
      everyMs: 'everyMs' in timing ? timing.everyMs : null,
      overlap: input.overlap,
      catchUp: input.catchUp,
      paused: input.paused,
      createdBy: input.createdBy,
    })
    .returning()
  return row as ScheduleRow
}

const withThreadKey = {
  schedule: schedules,
  threadKey: sql<string | null>`(select t.key from threads t where t.id = ${schedules.threadId})`,
}

/** The schedule `id` that is not deleted, with its thread's key, or null. */
export async function getSchedule(tx: TenantTx, id: string): Promise<ScheduleWithThread | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select(withThreadKey)
    .from(schedules)
    .where(
      and(eq(schedules.tenantId, tx.tenant), eq(schedules.id, id), isNull(schedules.deletedAt)),
    )
  return row ? { ...row.schedule, threadKey: row.threadKey } : null
}

/**
 * The tenant's schedules that are not deleted, newest first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listSchedules(
  tx: TenantTx,
  options: PageOptions = {},
): Promise<Page<ScheduleWithThread>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  const rows = await tx.db
    .select(withThreadKey)
    .from(schedules)
    .where(
      and(
        eq(schedules.tenantId, tx.tenant),
        isNull(schedules.deletedAt),
        olderThan(schedules.createdAt, schedules.id, after),
      ),
    )
    .orderBy(...newestFirst(schedules.createdAt, schedules.id))
    .limit(limit + 1)
  const page = toPage(rows, limit, (r) => [r.schedule.createdAt.toISOString(), r.schedule.id])
  return {
    items: page.items.map((r) => ({ ...r.schedule, threadKey: r.threadKey })),
    nextCursor: page.nextCursor,
  }
}

/**
 * Pauses or resumes a schedule that is not deleted; returns it as it is afterwards with whether
 * this call changed it, or null when there is no such schedule.
 */
export async function setSchedulePaused(
  tx: TenantTx,
  id: string,
  paused: boolean,
): Promise<{ schedule: ScheduleRow; changed: boolean } | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(schedules)
    .set({ paused, updatedAt: sql`now()` })
    .where(
      and(
        eq(schedules.tenantId, tx.tenant),
        eq(schedules.id, id),
        isNull(schedules.deletedAt),
        eq(schedules.paused, !paused),
      ),
    )
    .returning()
  if (row) return { schedule: row, changed: true }
  const current = await getSchedule(tx, id)
  return current ? { schedule: current, changed: false } : null
}

/** Deletes a schedule softly (its firings stay); returns it, or null when there is none. */
export async function deleteSchedule(tx: TenantTx, id: string): Promise<ScheduleRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(schedules)
    .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(eq(schedules.tenantId, tx.tenant), eq(schedules.id, id), isNull(schedules.deletedAt)),
    )
    .returning()
  return row ?? null
}

/**
 * The schedule's firings, newest first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listScheduleFirings(
  tx: TenantTx,
  scheduleId: string,
  options: PageOptions = {},
): Promise<Page<ScheduleFiringRow>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  const rows = await tx.db
    .select()
    .from(scheduleFirings)
    .where(
      and(
        eq(scheduleFirings.tenantId, tx.tenant),
        eq(scheduleFirings.scheduleId, scheduleId),
        olderThan(scheduleFirings.firedAt, scheduleFirings.id, after),
      ),
    )
    .orderBy(...newestFirst(scheduleFirings.firedAt, scheduleFirings.id))
    .limit(limit + 1)
  return toPage(rows, limit, (r) => [r.firedAt.toISOString(), r.id])
}

/** The time of the schedule's newest timed (not manual) firing, or null before its first. */
export async function lastScheduledFiring(tx: TenantTx, scheduleId: string): Promise<Date | null> {
  const [row] = await tx.db
    .select({ at: sql<string | null>`max(${scheduleFirings.scheduledFor})` })
    .from(scheduleFirings)
    .where(and(eq(scheduleFirings.tenantId, tx.tenant), eq(scheduleFirings.scheduleId, scheduleId)))
  return row?.at ? new Date(row.at) : null
}

export { SKIP_REASONS, type SkipReason } from './protocol/tenant-events.js'

/**
 * A timed firing handled more than this after its time was missed (every worker was down, or
 * Redis lost its job scheduler): under catch-up `skip` it starts no run.
 */
export const LATE_FIRING_MS = 60_000

/** Which firing `fireSchedule` records. */
export interface FiringRequest {
  scheduleId: string
  /**
   * The firing's key, unique per schedule: the tick's time (ISO) for a timed firing, so a tick
   * handled twice (two workers, a rebuilt job scheduler) is recorded and runs once.
   */
  tick: string
  /** The tick's time; null for a manual trigger. */
  scheduledFor: Date | null
  /** Who fires: `schedule:<id>` for a tick, the caller for a trigger. */
  actor: string
  /** A manual trigger fires a paused schedule too, and is never late. */
  manual?: boolean
  /**
   * A tick that fell while its job scheduler was lost, fired by the reconciler: under catch-up
   * `skip` it starts no run however recent it is.
   */
  missed?: boolean
  /** The request of a manual trigger, for the audit event. */
  context?: { requestId?: string | null; ip?: string | null }
  now?: Date
}

/** What `fireSchedule` did. */
export type FiringResult =
  | { kind: 'fired'; firing: ScheduleFiringRow; run: RunRow | null; held: boolean }
  /** The tick was fired before (by another worker, or before a rebuild). */
  | { kind: 'duplicate'; firing: ScheduleFiringRow }
  /** The schedule is paused or deleted: its job scheduler should go. */
  | { kind: 'inactive' }

/**
 * Fires a schedule once for a tick, in the caller's transaction: applies the catch-up policy
 * (a late tick under `skip`), the overlap policy (`skip` while a run of the schedule is active;
 * `enqueue` holds the run behind the thread's active run; `allow` starts it regardless, a
 * thread's own strategy still applying), starts the run (queued, or held on its thread) and
 * records the firing with it, audited. The schedule's row is locked first, so firings of one
 * schedule decide one after another, and the (schedule, tick) key makes a tick fire once
 * whichever workers handle it. The caller enqueues the run's job after commit unless it is held.
 */
export async function fireSchedule(tx: TenantTx, request: FiringRequest): Promise<FiringResult> {
  const now = request.now ?? new Date()
  const [schedule] = await tx.db
    .select()
    .from(schedules)
    .where(and(eq(schedules.tenantId, tx.tenant), eq(schedules.id, request.scheduleId)))
    .for('no key update')
  if (!schedule || schedule.deletedAt || (schedule.paused && !request.manual)) {
    return { kind: 'inactive' }
  }
  const [earlier] = await tx.db
    .select()
    .from(scheduleFirings)
    .where(
      and(
        eq(scheduleFirings.tenantId, tx.tenant),
        eq(scheduleFirings.scheduleId, schedule.id),
        eq(scheduleFirings.tick, request.tick),
      ),
    )
  if (earlier) return { kind: 'duplicate', firing: earlier }

  const outcome = await decide(tx, schedule, request, now)
  const [firing] = await tx.db
    .insert(scheduleFirings)
    .values({
      tenantId: tx.tenant,
      scheduleId: schedule.id,
      tick: request.tick,
      scheduledFor: request.scheduledFor,
      runId: outcome.run?.id ?? null,
      outcome: outcome.run ? 'started' : 'skipped',
      reason: outcome.reason ?? null,
    })
    .returning()
  await appendAudit(tx, {
    actor: request.actor,
    action: request.manual ? 'schedule.triggered' : 'schedule.fired',
    target: { kind: 'schedule', id: schedule.id },
    details: {
      tick: request.tick,
      run: outcome.run?.id ?? null,
      ...(outcome.reason ? { skipped: outcome.reason } : {}),
      ...(outcome.held ? { held: true } : {}),
    },
    ...(request.context ? { context: request.context } : {}),
  })
  await appendFiringEvent(tx, request, firing as ScheduleFiringRow, outcome)
  return {
    kind: 'fired',
    firing: firing as ScheduleFiringRow,
    run: outcome.run,
    held: outcome.held,
  }
}

interface Decision {
  run: RunRow | null
  held: boolean
  reason?: SkipReason
  /** Where the input does not fit the graph's input schema (`input-invalid`). */
  problems?: SpecProblem[]
}

/** The schedule's `schedule.fired` or `schedule.skipped` event, in the firing's transaction. */
async function appendFiringEvent(
  tx: TenantTx,
  request: FiringRequest,
  firing: ScheduleFiringRow,
  outcome: Decision,
): Promise<void> {
  const common = {
    schedule: firing.scheduleId,
    firingId: firing.id,
    tick: firing.tick,
    manual: request.manual === true,
  }
  const event = { subject: firing.scheduleId, actor: request.actor }
  if (outcome.run) {
    await appendTenantEvent(tx, {
      ...event,
      type: 'schedule.fired',
      data: { ...common, runId: outcome.run.id, held: outcome.held },
    })
    return
  }
  await appendTenantEvent(tx, {
    ...event,
    type: 'schedule.skipped',
    data: {
      ...common,
      reason: outcome.reason ?? 'target-unavailable',
      ...(outcome.problems ? { problems: outcome.problems } : {}),
    },
  })
}

/**
 * Where the schedule's input does not fit the graph version a firing would run, checked at each
 * firing as a run's start is checked: a version registered after the schedule was created may
 * have another input schema or approval steps whose record keys the input would forge.
 */
function inputProblems(
  spec: unknown,
  input: Json,
  thread: { isFirstRun: boolean } | null,
): SpecProblem[] {
  const parsed = GraphSpec.safeParse(spec)
  if (!parsed.success) return [{ path: '', message: 'the graph version has no usable spec' }]
  const schema = thread
    ? validateThreadRunInput(parsed.data, input, thread)
    : validateRunInput(parsed.data, input)
  return [...clientStateProblems(input, approvalRecordKeys(parsed.data)), ...schema]
}

async function decide(
  tx: TenantTx,
  schedule: ScheduleRow,
  request: FiringRequest,
  now: Date,
): Promise<Decision> {
  const skip = (reason: SkipReason, problems?: SpecProblem[]): Decision => ({
    run: null,
    held: false,
    reason,
    ...(problems ? { problems } : {}),
  })
  const late =
    request.scheduledFor !== null && now.getTime() - request.scheduledFor.getTime() > LATE_FIRING_MS
  if (!request.manual && (late || request.missed) && schedule.catchUp === 'skip') {
    return skip('missed')
  }

  if (schedule.threadId !== null) {
    const [thread] = await tx.db
      .select()
      .from(threads)
      .where(and(eq(threads.tenantId, tx.tenant), eq(threads.id, schedule.threadId)))
      .for('no key update')
    if (!thread || thread.archivedAt) return skip('target-unavailable')
    const graph = await getGraphForRun(tx, thread.graphName, thread.graphVersion ?? undefined)
    if (!graph?.version || graph.archivedAt) return skip('target-unavailable')
    const isFirstRun = (await latestThreadRun(tx, thread.id)) === null
    const problems = inputProblems(graph.version.spec, schedule.input as Json, { isFirstRun })
    if (problems.length > 0) return skip('input-invalid', problems)
    if (schedule.overlap === 'skip') {
      const active = await lockActiveThreadRuns(tx, thread.id)
      if (active.length > 0) return skip('overlap')
    }
    try {
      const started = await startThreadRun(tx, thread, {
        graphVersion: graph.version.version,
        input: schedule.input as Json,
        // The schedule's author starts its runs, so separation of duties keeps them from
        // approving what their schedule started.
        createdBy: schedule.createdBy,
        ...(schedule.overlap === 'enqueue' ? { strategy: 'enqueue' as const } : {}),
        scheduleId: schedule.id,
      })
      return { run: started.run, held: started.held }
    } catch (err) {
      if ((err as { code?: unknown }).code === 'thread-busy') return skip('thread-busy')
      throw err
    }
  }

  const graph = await getGraphForRun(tx, schedule.graphName, schedule.graphVersion ?? undefined)
  if (!graph?.version || graph.archivedAt) return skip('target-unavailable')
  const problems = inputProblems(graph.version.spec, schedule.input as Json, null)
  if (problems.length > 0) return skip('input-invalid', problems)
  if (schedule.overlap !== 'allow') {
    // Locked, so a firing decides with the previous firing's run in sight; a graph target's
    // `enqueue` is refused when the schedule is created, so only `skip` gets here.
    const [active] = await tx.db
      .select({ id: runs.id })
      .from(runs)
      .where(
        and(
          eq(runs.tenantId, tx.tenant),
          eq(runs.scheduleId, schedule.id),
          inArray(runs.status, [...ACTIVE_RUN_STATUSES]),
        ),
      )
      .limit(1)
      .for('no key update')
    if (active) return skip('overlap')
  }
  const { run } = await createRun(tx, {
    graphName: schedule.graphName,
    graphVersion: graph.version.version,
    input: schedule.input as Json,
    createdBy: schedule.createdBy,
    scheduleId: schedule.id,
  })
  await appendRunEvent(tx, run.id, 'run.queued', {
    graph: schedule.graphName,
    version: graph.version.version,
    schedule: schedule.id,
  })
  return { run, held: false }
}

/** A schedule that should have a job scheduler: neither paused nor deleted. */
export interface ActiveSchedule {
  tenant: string
  id: string
}

/**
 * Active schedules of every tenant, by id: what the reconciler checks against Redis's job
 * schedulers. A keyset page after `afterId`.
 */
export async function listActiveSchedules(
  database: Pick<Database, 'db'>,
  options: { afterId?: string | null; limit?: number } = {},
): Promise<ActiveSchedule[]> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000)
  const result = await database.db.execute<{ tenant_id: string; id: string }>(
    sql`select * from weave_active_schedules(${options.afterId ?? null}::uuid, ${limit})`,
  )
  return result.rows.map((r) => ({ tenant: r.tenant_id, id: r.id }))
}

/** The schedule row by id whether or not it is active (for the firing job and the reconciler). */
export async function readSchedule(tx: TenantTx, id: string): Promise<ScheduleRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select()
    .from(schedules)
    .where(and(eq(schedules.tenantId, tx.tenant), eq(schedules.id, id)))
  return row ?? null
}
