import { randomUUID } from 'node:crypto'
import {
  appendTenantEvent,
  createSchedule,
  deleteSchedule,
  fireSchedule,
  getSchedule,
  getThread,
  listScheduleFirings,
  listSchedules,
  listTenantEvents,
  readSchedule,
  setSchedulePaused,
  withTenant,
  type ScheduleFiringRow,
  type ScheduleRow,
  type ScheduleTimers,
  type ScheduleWithThread,
  type SkipReason,
  type TenantTx,
} from '@weave/db'
import type { Json } from '@weave/kernel'
import { GraphSpec, validateRunInput, validateThreadRunInput } from '@weave/spec'
import { cronProblem, timeZoneProblem } from '@weave/queue'
import type { z } from 'zod'
import type { Principal } from '../auth/principal.js'
import { ConflictError, NotFoundError, UnprocessableError } from '../http/app-errors.js'
import type { FieldError } from '../http/problems.js'
import type {
  CreateScheduleBody,
  FiringPage,
  FiringView,
  ListFiringsQuery,
  ListSchedulesQuery,
  SchedulePage,
  ScheduleView,
} from '../schemas/schedules.js'
import type { TenantEventPage, TenantEventsQuery } from '../schemas/tenant-events.js'
import { auditRequest } from './audit-request.js'
import { refuseClientState } from './client-input.js'
import { enqueueOrDefer, type AuditContext, type ServiceDeps } from './deps.js'
import { runnableVersion } from './runnable-graph.js'
import { toTenantEventPage } from './tenant-event-views.js'

/** Schedules as the API offers them: runs of a graph or a thread on a cron or an interval. */
export interface ScheduleService {
  /**
   * Creates a schedule and sets its job scheduler.
   * @throws {UnprocessableError} a bad cron expression or time zone, `enqueue` for a graph target
   * @throws {NotFoundError} unknown graph, version or thread; {ConflictError} archived graph
   */
  create(
    tenant: string,
    principal: Principal,
    body: CreateScheduleBody,
    context: AuditContext,
  ): Promise<ScheduleView>
  /** @throws {NotFoundError} */
  get(tenant: string, id: string): Promise<ScheduleView>
  /** The tenant's schedules, newest first. @throws {BadRequestError} bad cursor */
  list(tenant: string, query: z.infer<typeof ListSchedulesQuery>): Promise<SchedulePage>
  /** Pauses (or resumes) a schedule; idempotent. @throws {NotFoundError} */
  setPaused(
    tenant: string,
    principal: Principal,
    id: string,
    paused: boolean,
    context: AuditContext,
  ): Promise<ScheduleView>
  /** Deletes a schedule (its firings stay readable in the audit chain). @throws {NotFoundError} */
  remove(tenant: string, principal: Principal, id: string, context: AuditContext): Promise<void>
  /** Fires a schedule now (paused ones too), under its overlap policy. @throws {NotFoundError} */
  trigger(
    tenant: string,
    principal: Principal,
    id: string,
    context: AuditContext,
  ): Promise<FiringView>
  /** The schedule's firings, newest first. @throws {NotFoundError}, {BadRequestError} */
  firings(tenant: string, id: string, query: z.infer<typeof ListFiringsQuery>): Promise<FiringPage>
  /**
   * The schedule's events (deleted schedules' too), newest first.
   * @throws {NotFoundError}, {BadRequestError} bad cursor
   */
  events(
    tenant: string,
    id: string,
    query: z.infer<typeof TenantEventsQuery>,
  ): Promise<TenantEventPage>
}

/**
 * Builds the {@link ScheduleService}. `timers` sets the BullMQ job schedulers; when Redis is away
 * the change still commits and the worker's reconciler sets (or a firing removes) them later.
 */
export function createScheduleService(
  deps: ServiceDeps,
  timers: ScheduleTimers | undefined,
): ScheduleService {
  const { database } = deps

  async function syncTimer(schedule: ScheduleRow, context: AuditContext): Promise<void> {
    if (!timers) return
    try {
      if (schedule.paused || schedule.deletedAt) await timers.removeScheduleTimer(schedule.id)
      else await timers.setScheduleTimer(schedule)
    } catch (err) {
      deps.log?.warn(
        { err, scheduleId: schedule.id, requestId: context.requestId },
        'job scheduler not updated; the reconciler or the next firing will',
      )
    }
  }

  return {
    async create(tenant, principal, body, context) {
      const timezone = body.timezone ?? 'UTC'
      const errors: FieldError[] = []
      const zone = body.cron === undefined ? null : timeZoneProblem(timezone)
      if (zone) errors.push({ path: '/body/timezone', message: zone })
      const cron = body.cron === undefined || zone ? null : cronProblem(body.cron, timezone)
      if (cron) errors.push({ path: '/body/cron', message: cron })
      const overlap = body.overlap ?? 'skip'
      if (overlap === 'enqueue' && body.target.thread === undefined) {
        errors.push({
          path: '/body/overlap',
          message: 'enqueue keeps runs in order on a thread: give a thread target, or skip/allow',
        })
      }
      if (errors.length > 0) {
        throw new UnprocessableError(`The schedule is invalid: ${errors[0]!.message}.`, errors)
      }
      const schedule = await withTenant(database, tenant, async (tx) => {
        let graphName: string
        let threadId: string | null = null
        let graphVersion: number | null = null
        if (body.target.thread !== undefined) {
          const thread = await getThread(tx, body.target.thread)
          if (!thread || thread.archivedAt) {
            throw new NotFoundError(`No thread "${body.target.thread}".`)
          }
          const version = await runnableVersion(
            tx,
            thread.graphName,
            thread.graphVersion ?? undefined,
          )
          // Keys given are held to the input schema now; whether the thread's state supplies
          // the ones it requires is known only when a firing starts a run (fireSchedule).
          const spec = GraphSpec.parse(version.spec)
          refuseClientState(
            body.input ?? {},
            spec,
            validateThreadRunInput(spec, body.input ?? {}, { isFirstRun: false }),
          )
          graphName = thread.graphName
          threadId = thread.id
        } else {
          const name = body.target.graph as string
          const version = await runnableVersion(tx, name, body.target.version)
          // A graph target's firings start plain runs: their input is held to the run input schema.
          const spec = GraphSpec.parse(version.spec)
          refuseClientState(body.input ?? {}, spec, validateRunInput(spec, body.input ?? {}))
          graphName = name
          graphVersion = body.target.version === undefined ? null : version.version
        }
        const row = await createSchedule(tx, {
          graphName,
          graphVersion,
          threadId,
          input: (body.input ?? {}) as Json,
          timing:
            body.cron !== undefined
              ? { cron: body.cron.trim(), timezone }
              : { everyMs: body.everyMs as number },
          overlap,
          catchUp: body.catchUp ?? 'once',
          paused: body.paused ?? false,
          createdBy: principal.subject,
        })
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'schedule.created',
            target: { kind: 'schedule', id: row.id },
            details: {
              graph: graphName,
              thread: body.target.thread ?? null,
              cron: row.cron,
              timezone: row.timezone,
              everyMs: row.everyMs,
              overlap: row.overlap,
              catchUp: row.catchUp,
              paused: row.paused,
            },
          },
        )
        await appendTenantEvent(tx, {
          type: 'schedule.created',
          subject: row.id,
          actor: principal.subject,
          data: {
            schedule: row.id,
            target: { graph: graphName, version: graphVersion, thread: body.target.thread ?? null },
            cron: row.cron,
            timezone: row.timezone,
            everyMs: row.everyMs,
            paused: row.paused,
          },
        })
        return { ...row, threadKey: body.target.thread ?? null }
      })
      await syncTimer(schedule, context)
      return toScheduleView(schedule)
    },

    async get(tenant, id) {
      return toScheduleView(await withTenant(database, tenant, (tx) => requireSchedule(tx, id)))
    },

    async list(tenant, query) {
      const page = await withTenant(database, tenant, (tx) =>
        listSchedules(tx, { limit: query.limit, cursor: query.cursor ?? null }),
      )
      return { items: page.items.map(toScheduleView), nextCursor: page.nextCursor }
    },

    async setPaused(tenant, principal, id, paused, context) {
      const schedule = await withTenant(database, tenant, async (tx) => {
        const result = await setSchedulePaused(tx, id, paused)
        if (!result) throw notFound(id)
        if (result.changed) {
          await auditRequest(
            tx,
            { principal, context },
            {
              action: paused ? 'schedule.paused' : 'schedule.resumed',
              target: { kind: 'schedule', id },
            },
          )
          await appendTenantEvent(tx, {
            type: paused ? 'schedule.paused' : 'schedule.resumed',
            subject: id,
            actor: principal.subject,
            data: { schedule: id },
          })
        }
        return requireSchedule(tx, id)
      })
      await syncTimer(schedule, context)
      return toScheduleView(schedule)
    },

    async remove(tenant, principal, id, context) {
      const deleted = await withTenant(database, tenant, async (tx) => {
        const row = await deleteSchedule(tx, id)
        if (!row) throw notFound(id)
        await auditRequest(
          tx,
          { principal, context },
          { action: 'schedule.deleted', target: { kind: 'schedule', id } },
        )
        await appendTenantEvent(tx, {
          type: 'schedule.deleted',
          subject: id,
          actor: principal.subject,
          data: { schedule: id },
        })
        return row
      })
      await syncTimer(deleted, context)
    },

    async trigger(tenant, principal, id, context) {
      const result = await withTenant(database, tenant, async (tx) => {
        await requireSchedule(tx, id)
        return fireSchedule(tx, {
          scheduleId: id,
          // A trigger is its own firing, never one of the schedule's ticks.
          tick: `manual-${randomUUID()}`,
          scheduledFor: null,
          actor: principal.subject,
          manual: true,
          context,
        })
      })
      if (result.kind !== 'fired') throw new ConflictError(`Schedule ${id} did not fire.`)
      if (result.run && !result.held) {
        await enqueueOrDefer(deps, 'run', { runId: result.run.id, tenant }, context)
      }
      return toFiringView(result.firing)
    },

    async firings(tenant, id, query) {
      const page = await withTenant(database, tenant, async (tx) => {
        await requireSchedule(tx, id)
        return listScheduleFirings(tx, id, { limit: query.limit, cursor: query.cursor ?? null })
      })
      return { items: page.items.map(toFiringView), nextCursor: page.nextCursor }
    },

    async events(tenant, id, query) {
      const page = await withTenant(database, tenant, async (tx) => {
        if (!(await readSchedule(tx, id))) throw notFound(id)
        return listTenantEvents(tx, 'schedule', id, {
          limit: query.limit,
          cursor: query.cursor ?? null,
        })
      })
      return toTenantEventPage(page)
    },
  }
}

async function requireSchedule(tx: TenantTx, id: string): Promise<ScheduleWithThread> {
  const schedule = await getSchedule(tx, id)
  if (!schedule) throw notFound(id)
  return schedule
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`No schedule ${id}.`)
}

function toScheduleView(s: ScheduleWithThread): ScheduleView {
  return {
    id: s.id,
    target: { graph: s.graphName, version: s.graphVersion, thread: s.threadKey },
    cron: s.cron,
    timezone: s.timezone,
    everyMs: s.everyMs,
    input: s.input as Record<string, unknown>,
    overlap: s.overlap,
    catchUp: s.catchUp,
    paused: s.paused,
    createdBy: s.createdBy,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  }
}

function toFiringView(f: ScheduleFiringRow): FiringView {
  return {
    id: f.id,
    scheduleId: f.scheduleId,
    firedAt: f.firedAt.toISOString(),
    scheduledFor: f.scheduledFor ? f.scheduledFor.toISOString() : null,
    manual: f.scheduledFor === null,
    outcome: f.outcome,
    runId: f.runId,
    reason: f.reason as SkipReason | null,
  }
}
