import {
  ApprovalTimeoutJob,
  DeliverJob,
  JOB_NAMES,
  ResumeJob,
  RunJob,
  RUNS_QUEUE,
  TIMERS_QUEUE,
  WEBHOOKS_QUEUE,
  WaitElapsedJob,
  approvalTimeoutJobId,
  deliveryJobId,
  resumeJobId,
  runJobId,
  waitJobId,
} from '@weave/db'
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq'

/** Where the queues live. */
export interface JobQueueOptions {
  connection: ConnectionOptions
  /** BullMQ key prefix; tests give each file its own. Default "weave". */
  prefix?: string
}

/**
 * Retries with backoff for transient failures (a worker shut down mid-run, Postgres briefly
 * away); execution resumes from the last checkpoint, so a retry never redoes a finished step.
 * Completed jobs are removed so a run's job id can be enqueued again by the reconciler.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
}

/**
 * Delivery jobs. A receiver's failure does not fail the job: the worker records the attempt and
 * delays the job itself, counting attempts in Postgres. These retries are for the worker's own
 * failures (Postgres away). Finished jobs stay an hour, so announcing a delivery just sent again
 * is a no-op rather than a new job.
 */
export const DELIVERY_JOB_OPTIONS: JobsOptions = {
  ...DEFAULT_JOB_OPTIONS,
  removeOnComplete: { age: 3600, count: 10_000 },
}

/** The queues {@link JobQueues.hasLiveJob} can look in. */
export type QueueName = 'runs' | 'timers' | 'webhooks'

/** Enqueues Weave's jobs with deterministic ids, so duplicates are no-ops. */
export interface JobQueues {
  readonly runs: Queue
  readonly timers: Queue
  readonly webhooks: Queue
  /** Executes a queued run (job id = run id). */
  enqueueRun(job: RunJob): Promise<void>
  /** Resumes a run once per `key` (e.g. an approval id). */
  enqueueResume(key: string, job: ResumeJob): Promise<void>
  /** Fires a `wait` step's timer after `delayMs`. */
  scheduleWait(job: WaitElapsedJob, delayMs: number): Promise<void>
  /** Expires an approval after `delayMs`. */
  scheduleApprovalTimeout(job: ApprovalTimeoutJob, delayMs: number): Promise<void>
  /** Sends a webhook delivery after `delayMs` (default now); one job per delivery at a time. */
  enqueueDelivery(job: DeliverJob, delayMs?: number): Promise<void>
  /** True when a job with this id is waiting, delayed, active or being retried. */
  hasLiveJob(queue: QueueName, jobId: string): Promise<boolean>
  close(): Promise<void>
}

/** Opens the runs, timers and webhooks queues. */
export function createJobQueues(o: JobQueueOptions): JobQueues {
  const shared = {
    connection: o.connection,
    prefix: o.prefix ?? 'weave',
    defaultJobOptions: DEFAULT_JOB_OPTIONS,
  }
  const runs = new Queue(RUNS_QUEUE, shared)
  const timers = new Queue(TIMERS_QUEUE, shared)
  const webhooks = new Queue(WEBHOOKS_QUEUE, { ...shared, defaultJobOptions: DELIVERY_JOB_OPTIONS })
  const queueOf = (name: QueueName) => ({ runs, timers, webhooks })[name]

  return {
    runs,
    timers,
    webhooks,
    async enqueueRun(job) {
      await runs.add(JOB_NAMES.run, RunJob.parse(job), { jobId: runJobId(job.runId) })
    },
    async enqueueResume(key, job) {
      await runs.add(JOB_NAMES.resume, ResumeJob.parse(job), { jobId: resumeJobId(key) })
    },
    async scheduleWait(job, delayMs) {
      await timers.add(JOB_NAMES.waitElapsed, WaitElapsedJob.parse(job), {
        jobId: waitJobId(job.runId, job.seq),
        delay: Math.max(0, Math.round(delayMs)),
      })
    },
    async scheduleApprovalTimeout(job, delayMs) {
      await timers.add(JOB_NAMES.approvalTimeout, ApprovalTimeoutJob.parse(job), {
        jobId: approvalTimeoutJobId(job.approvalId),
        delay: Math.max(0, Math.round(delayMs)),
      })
    },
    async enqueueDelivery(job, delayMs = 0) {
      await webhooks.add(JOB_NAMES.deliver, DeliverJob.parse(job), {
        jobId: deliveryJobId(job.deliveryId),
        delay: Math.max(0, Math.round(delayMs)),
      })
    },
    async hasLiveJob(queue, jobId) {
      const job = await queueOf(queue).getJob(jobId)
      if (!job) return false
      const state = await job.getState()
      return (
        state === 'waiting' ||
        state === 'delayed' ||
        state === 'active' ||
        state === 'prioritized' ||
        state === 'waiting-children'
      )
    },
    async close() {
      await Promise.all([runs.close(), timers.close(), webhooks.close()])
    },
  }
}
