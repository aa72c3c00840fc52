import {
  fireSchedule,
  lastScheduledFiring,
  listActiveSchedules,
  readSchedule,
  timingOf,
  withTenant,
  type Database,
  type FireScheduleJob,
  type FiringResult,
  type JobSink,
  type ScheduleRow,
  type ScheduleTimers,
} from '@weave/db'
import { latestTickBetween } from '@weave/queue'
import type { Job } from 'bullmq'
import type { Logger } from 'pino'

/** What firing schedules needs. */
export interface ScheduleDeps {
  database: Database
  jobs: JobSink
  queues: ScheduleTimers
  log: Logger
}

/** The actor of a schedule's timed firings in the audit chain and on their runs. */
export const scheduleActor = (scheduleId: string) => `schedule:${scheduleId}`

/**
 * The time of the tick a job scheduler's job stands for: BullMQ names it
 * `repeat:<scheduler id>:<tick millis>` and keeps the millis in `prevMillis` too.
 */
export function tickOf(job: Pick<Job, 'id' | 'opts'>): Date {
  const fromId = Number(job.id?.split(':').at(-1))
  const millis = Number.isSafeInteger(fromId)
    ? fromId
    : Number((job.opts as { prevMillis?: unknown }).prevMillis)
  if (!Number.isSafeInteger(millis)) throw new Error(`job ${job.id} names no tick`)
  return new Date(millis)
}

/**
 * Handles one tick of a schedule: fires it in Postgres (once per tick, whichever worker or how
 * many take it) and enqueues the run it started. A schedule paused or deleted since has its job
 * scheduler removed.
 */
export async function fireScheduleTick(
  deps: ScheduleDeps,
  payload: FireScheduleJob,
  job: Pick<Job, 'id' | 'opts'>,
): Promise<FiringResult['kind']> {
  const tick = tickOf(job)
  const result = await withTenant(deps.database, payload.tenant, (tx) =>
    fireSchedule(tx, {
      scheduleId: payload.scheduleId,
      tick: tick.toISOString(),
      scheduledFor: tick,
      actor: scheduleActor(payload.scheduleId),
    }),
  )
  await afterFiring(deps, payload.tenant, payload.scheduleId, result)
  return result.kind
}

async function afterFiring(
  deps: ScheduleDeps,
  tenant: string,
  scheduleId: string,
  result: FiringResult,
): Promise<void> {
  if (result.kind === 'inactive') {
    await deps.queues.removeScheduleTimer(scheduleId)
    return
  }
  if (result.kind !== 'fired') return
  const { firing, run, held } = result
  deps.log.info(
    { tenant, scheduleId, tick: firing.tick, runId: run?.id ?? null, skipped: firing.reason },
    'schedule fired',
  )
  if (!run || held) return
  try {
    await deps.jobs.enqueue('run', { runId: run.id, tenant })
  } catch (err) {
    // The run is committed as queued: the reconciler's queued-run sweep enqueues it later.
    deps.log.warn({ err, runId: run.id, tenant }, 'job enqueue failed; the reconciler will')
  }
}

/** What one schedule pass did. */
export interface ScheduleReport {
  /** Active schedules whose job scheduler Redis had lost, set again. */
  rebuilt: number
  /** Of those, the ones that fired a tick missed meanwhile (under their catch-up policy). */
  caughtUp: number
}

/**
 * Rebuilds the job schedulers Redis lost (a flush, a failover without persistence) from
 * Postgres, which holds the schedules. A schedule whose ticks fell while it had no scheduler
 * fires its newest missed tick once, under its catch-up policy (`once` starts a run, `skip`
 * records the tick as missed): the tick's key is that of the scheduler's own tick, so a tick
 * both fire is still fired once.
 */
export async function reconcileSchedules(
  deps: ScheduleDeps,
  now = new Date(),
): Promise<ScheduleReport> {
  const report: ScheduleReport = { rebuilt: 0, caughtUp: 0 }
  let afterId: string | null = null
  for (;;) {
    const page = await listActiveSchedules(deps.database, { afterId, limit: 500 })
    for (const active of page) {
      if (await deps.queues.hasScheduleTimer(active.id)) continue
      const missed = await withTenant(deps.database, active.tenant, async (tx) => {
        const schedule = await readSchedule(tx, active.id)
        if (!schedule || schedule.paused || schedule.deletedAt) return null
        return { schedule, result: await catchUp(tx, schedule, now) }
      })
      if (!missed) continue
      if (missed.result) {
        await afterFiring(deps, active.tenant, active.id, missed.result)
        if (missed.result.kind === 'fired') report.caughtUp += 1
      }
      await deps.queues.setScheduleTimer(missed.schedule, now)
      report.rebuilt += 1
    }
    if (page.length < 500) return report
    afterId = page.at(-1)!.id
  }
}

async function catchUp(
  tx: Parameters<Parameters<typeof withTenant>[2]>[0],
  schedule: ScheduleRow,
  now: Date,
): Promise<FiringResult | null> {
  const last = await lastScheduledFiring(tx, schedule.id)
  // Ticks before the schedule was last created, paused or resumed are not missed ones.
  const since = last && last > schedule.updatedAt ? last : schedule.updatedAt
  const tick = latestTickBetween(timingOf(schedule), since, now, schedule.createdAt)
  if (!tick) return null
  return fireSchedule(tx, {
    scheduleId: schedule.id,
    tick: tick.toISOString(),
    scheduledFor: tick,
    actor: scheduleActor(schedule.id),
    missed: true,
    now,
  })
}
