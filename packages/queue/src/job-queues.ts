import {
  JOBS,
  QUEUES,
  jobId,
  scheduleTimerId,
  type EnqueueOptions,
  type JobKind,
  type JobPayload,
  type JobSink,
  type QueueName,
  type ScheduleRow,
  type ScheduleTimers,
} from '@weave/db'
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq'
import { withTraceContext } from './job-trace.js'
import { isRedisUnavailable } from './outage-errors.js'
import { nextIntervalTick } from './schedule-timing.js'

/** Where the queues live. */
export interface JobQueueOptions {
  connection: ConnectionOptions
  /** BullMQ key prefix; tests give each file its own. Default "weave". */
  prefix?: string
  /**
   * Receives the queues' connection errors (a reconnect that failed, a command Redis refused).
   * Without it BullMQ prints each one to stderr.
   */
  onError?: (err: Error, queue: QueueName) => void
}

/**
 * Retries with backoff for transient failures the job could not hand back itself; execution
 * resumes from the last checkpoint, so a retry never redoes a finished step. Infrastructure
 * outages do not spend attempts (the runs processor delays its job instead), so a run's job does
 * not give up while the run is alive. Completed jobs are removed so a run's job id can be
 * enqueued again by the reconciler.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
}

/**
 * Delivery jobs. A receiver's failure does not fail the job: the worker records the attempt and
 * delays the job itself, counting attempts in Postgres. Finished jobs stay an hour, so announcing
 * a delivery just sent again is a no-op rather than a new job.
 */
export const DELIVERY_JOB_OPTIONS: JobsOptions = {
  ...DEFAULT_JOB_OPTIONS,
  removeOnComplete: { age: 3600, count: 10_000 },
}

// A reconcile tick that finds the previous one still queued is dropped, not stacked.
const MAINTENANCE_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 100 },
}

/** How long a queue command may wait for Redis's answer before it fails. */
export const QUEUE_COMMAND_TIMEOUT_MS = 5_000

/**
 * A producer's connection options: while Redis is away a command fails at once instead of
 * waiting in ioredis's offline queue until Redis returns (a request adding a job would hang, and
 * closing the queue would wait for QUIT to be sent), and a command Redis does not answer fails
 * after QUEUE_COMMAND_TIMEOUT_MS. Callers already treat a failed add as "the reconciler adds it
 * later". A connection given as a client instance is the caller's to configure.
 */
function failFast(connection: ConnectionOptions): ConnectionOptions {
  if (typeof (connection as { duplicate?: unknown }).duplicate === 'function') return connection
  return {
    ...connection,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: QUEUE_COMMAND_TIMEOUT_MS,
  }
}

/**
 * Closes a queue. While Redis is away its QUIT fails at once (no offline queue) and the
 * connection would go on reconnecting, so its client is ended instead (BullMQ's own disconnect
 * waits for an `end` event a reconnecting client never emits): a producer leaves nothing behind.
 */
async function closeQueue(queue: Queue): Promise<void> {
  try {
    await queue.close()
  } catch (err) {
    if (!isRedisUnavailable(err)) throw err
    const client = await queue.getBackend().client
    client.disconnect()
  }
}

// A tick's firing is idempotent in Postgres, so a tick that failed (Postgres away) is tried again.
const SCHEDULE_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
}

const LIVE_STATES = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children'])

/** Weave's queues and the one way to add a job to them. */
export interface JobQueues extends JobSink, ScheduleTimers {
  readonly runs: Queue
  readonly timers: Queue
  readonly webhooks: Queue
  readonly maintenance: Queue
  /** The queue of a kind of job. */
  queueOf(kind: JobKind): Queue
  /** True when a job with this id is waiting, delayed, active or being retried. */
  hasLiveJob(queue: QueueName, jobId: string): Promise<boolean>
  /**
   * Fires `reconcile` every `everyMs` through a BullMQ job scheduler: one job per tick for the
   * whole cluster, whichever worker takes it.
   */
  scheduleReconciler(everyMs: number): Promise<void>
  /** Stops firing `reconcile` (the scheduler is removed for every worker). */
  unscheduleReconciler(): Promise<void>
  /** Fires `anchor-audit` every `everyMs`, one job per tick for the whole cluster. */
  scheduleAuditAnchors(everyMs: number): Promise<void>
  /** Fires `apply-retention` every `everyMs`, one job per tick for the whole cluster. */
  scheduleRetention(everyMs: number): Promise<void>
  close(): Promise<void>
}

/**
 * Opens Weave's queues; jobs get their ids and payload checks from the catalogue (`JOBS`). Their
 * connections fail fast while Redis is away (see failFast), so no caller waits for it to return.
 */
export function createJobQueues(o: JobQueueOptions): JobQueues {
  const shared = {
    connection: failFast(o.connection),
    prefix: o.prefix ?? 'weave',
    defaultJobOptions: DEFAULT_JOB_OPTIONS,
  }
  const queues: Record<QueueName, Queue> = {
    runs: new Queue(QUEUES.runs, shared),
    timers: new Queue(QUEUES.timers, shared),
    webhooks: new Queue(QUEUES.webhooks, { ...shared, defaultJobOptions: DELIVERY_JOB_OPTIONS }),
    maintenance: new Queue(QUEUES.maintenance, {
      ...shared,
      defaultJobOptions: MAINTENANCE_JOB_OPTIONS,
    }),
  }
  if (o.onError) {
    const onError = o.onError
    for (const [name, queue] of Object.entries(queues) as Array<[QueueName, Queue]>) {
      queue.on('error', (err) => onError(err, name))
    }
  }
  const queueOf = (kind: JobKind) => queues[JOBS[kind].queue]
  const reconcileScheduler = 'reconcile'

  return {
    ...queues,
    queueOf,
    async enqueue<K extends JobKind>(
      kind: K,
      payload: JobPayload<K>,
      options: EnqueueOptions = {},
    ): Promise<boolean> {
      const spec = JOBS[kind]
      const data = spec.payload.parse(payload) as JobPayload<K>
      const id = jobId(kind, data)
      const queue = queueOf(kind)
      if (options.replaceFailed) {
        // Only the reconciler's repairs pay for the look: they count what they really added.
        const existing = await queue.getJob(id)
        if (existing) {
          if ((await existing.getState()) !== 'failed') return false
          await existing.remove()
        }
      }
      // The job carries the enqueuer's trace, so the worker's spans continue it.
      await queue.add(spec.name, withTraceContext(data as object), {
        jobId: id,
        ...(options.delayMs === undefined
          ? {}
          : { delay: Math.max(0, Math.round(options.delayMs)) }),
      })
      return true
    },
    async hasLiveJob(queue, id) {
      const job = await queues[queue].getJob(id)
      return job ? LIVE_STATES.has(await job.getState()) : false
    },
    async scheduleReconciler(everyMs) {
      await queues.maintenance.upsertJobScheduler(
        reconcileScheduler,
        { every: everyMs },
        { name: JOBS.reconcile.name, data: {}, opts: MAINTENANCE_JOB_OPTIONS },
      )
    },
    async unscheduleReconciler() {
      await queues.maintenance.removeJobScheduler(reconcileScheduler)
    },
    async scheduleAuditAnchors(everyMs) {
      await queues.maintenance.upsertJobScheduler(
        'anchor-audit',
        { every: everyMs },
        { name: JOBS.anchorAudit.name, data: {}, opts: MAINTENANCE_JOB_OPTIONS },
      )
    },
    async scheduleRetention(everyMs) {
      await queues.maintenance.upsertJobScheduler(
        'apply-retention',
        { every: everyMs },
        { name: JOBS.applyRetention.name, data: {}, opts: MAINTENANCE_JOB_OPTIONS },
      )
    },
    async setScheduleTimer(schedule: ScheduleRow, from = new Date()) {
      const data = { scheduleId: schedule.id, tenant: schedule.tenantId }
      const id = jobId('fireSchedule', data)
      // An interval's ticks keep to the lattice `createdAt + k * every` across rebuilds, so a
      // catch-up firing and the rebuilt scheduler agree on each tick's key.
      const repeat =
        schedule.cron !== null
          ? { pattern: schedule.cron, tz: schedule.timezone ?? 'UTC' }
          : {
              every: schedule.everyMs as number,
              startDate: nextIntervalTick(schedule.everyMs as number, schedule.createdAt, from),
            }
      await queues.timers.upsertJobScheduler(id, repeat, {
        name: JOBS.fireSchedule.name,
        data,
        opts: SCHEDULE_JOB_OPTIONS,
      })
    },
    async removeScheduleTimer(scheduleId) {
      await queues.timers.removeJobScheduler(scheduleTimerId(scheduleId))
    },
    async hasScheduleTimer(scheduleId) {
      return (await queues.timers.getJobScheduler(scheduleTimerId(scheduleId))) !== undefined
    },
    async close() {
      await Promise.all(Object.values(queues).map(closeQueue))
    },
  }
}
