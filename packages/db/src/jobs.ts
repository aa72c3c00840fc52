import { z } from 'zod'
import { ResumeReason } from './protocol/run-events.js'

/**
 * Weave's BullMQ queues, by the name code uses. Queue and job names are kebab-case, declared
 * here once; the queue package opens them and the worker consumes them.
 */
export const QUEUES = {
  runs: 'weave-runs',
  timers: 'weave-timers',
  webhooks: 'weave-webhooks',
  maintenance: 'weave-maintenance',
} as const

/** A queue, by the name code uses. */
export type QueueName = keyof typeof QUEUES

const RunId = z.uuid()
const Tenant = z.string().min(1)
const Seq = z.int().nonnegative()

/** `run`: execute a queued run, or take over a running one whose executor vanished. */
export const RunJob = z
  .object({
    runId: RunId,
    tenant: Tenant,
    // Set by the reconciler: the run's lease was handed to this job (`recover-<runId>-<n>`).
    takeover: z
      .string()
      .regex(/^[0-9]{1,16}$/)
      .optional(),
  })
  .strict()
export type RunJob = z.infer<typeof RunJob>

/**
 * `resume`: resume a waiting or failed run at checkpoint `atSeq`. The input it applies is read
 * from Postgres when the job runs: the settled approval it names (`approvalId`), or the run's
 * pending resume request (input, retry); a timer resumes with none. So a lost job is rebuilt from
 * Postgres, and no client input ever travels in a job.
 */
export const ResumeJob = z
  .object({
    runId: RunId,
    tenant: Tenant,
    reason: ResumeReason.exclude(['run']),
    atSeq: Seq,
    approvalId: z.uuid().optional(),
  })
  .strict()
export type ResumeJob = z.infer<typeof ResumeJob>

/** `wait-elapsed`: a `wait` step's timer fired for the checkpoint `seq` of a run. */
export const WaitElapsedJob = z
  .object({ runId: RunId, tenant: Tenant, step: z.string().min(1), seq: Seq })
  .strict()
export type WaitElapsedJob = z.infer<typeof WaitElapsedJob>

/** `approval-timeout`: an approval's timeout passed. */
export const ApprovalTimeoutJob = z.object({ approvalId: z.uuid(), tenant: Tenant }).strict()
export type ApprovalTimeoutJob = z.infer<typeof ApprovalTimeoutJob>

/** `deliver`: send a webhook delivery. */
export const DeliverJob = z.object({ deliveryId: z.uuid(), tenant: Tenant }).strict()
export type DeliverJob = z.infer<typeof DeliverJob>

/** `reconcile`: one repair pass over what Redis may have lost; fired by a job scheduler. */
export const ReconcileJob = z.object({}).strict()
export type ReconcileJob = z.infer<typeof ReconcileJob>

/**
 * `anchor-audit`: sign the head of every audit chain grown since its last anchor, then send the
 * anchors not yet sent to the anchor webhook; fired by a job scheduler.
 */
export const AnchorAuditJob = z.object({}).strict()
export type AnchorAuditJob = z.infer<typeof AnchorAuditJob>

/**
 * `apply-retention`: apply every tenant's retention policies once (retention-pass.ts); fired by
 * a job scheduler.
 */
export const ApplyRetentionJob = z.object({}).strict()
export type ApplyRetentionJob = z.infer<typeof ApplyRetentionJob>

/**
 * `fire-schedule`: one tick of a schedule, added by the schedule's BullMQ job scheduler (its
 * tick's time is the job's `prevMillis`). The firing itself is decided in Postgres.
 */
export const FireScheduleJob = z.object({ scheduleId: z.uuid(), tenant: Tenant }).strict()
export type FireScheduleJob = z.infer<typeof FireScheduleJob>

/** The id of a schedule's BullMQ job scheduler. */
export function scheduleTimerId(scheduleId: string): string {
  return `schedule-${scheduleId}`
}

interface JobSpec<P extends z.ZodType> {
  queue: QueueName
  name: string
  payload: P
  /**
   * The job id: deterministic, so adding a job already waiting or running is a no-op. BullMQ
   * refuses custom ids that contain ':' or are integers, hence the '-' separators and prefixes.
   */
  id: (payload: z.infer<P>) => string
}

const job = <P extends z.ZodType>(spec: JobSpec<P>): JobSpec<P> => spec

/**
 * Every job Weave runs: its queue, name, payload schema and id. `enqueue` (the queue package)
 * and the worker's processors go through this table only; nothing builds a job id by hand.
 */
export const JOBS = {
  run: job({
    queue: 'runs',
    name: 'run',
    payload: RunJob,
    id: (p) => (p.takeover === undefined ? p.runId : `recover-${p.runId}-${p.takeover}`),
  }),
  resume: job({
    queue: 'runs',
    name: 'resume',
    payload: ResumeJob,
    // One resume per settled approval, or per checkpoint for the other reasons: two racing
    // deciders, or a timer fired twice, cannot resume a run twice.
    id: (p) =>
      p.approvalId === undefined
        ? `resume-${p.reason}-${p.runId}-${p.atSeq}`
        : `resume-${p.approvalId}`,
  }),
  waitElapsed: job({
    queue: 'timers',
    name: 'wait-elapsed',
    payload: WaitElapsedJob,
    id: (p) => `wait-${p.runId}-${p.seq}`,
  }),
  approvalTimeout: job({
    queue: 'timers',
    name: 'approval-timeout',
    payload: ApprovalTimeoutJob,
    id: (p) => `approval-timeout-${p.approvalId}`,
  }),
  deliver: job({
    queue: 'webhooks',
    name: 'deliver',
    payload: DeliverJob,
    id: (p) => `delivery-${p.deliveryId}`,
  }),
  fireSchedule: job({
    queue: 'timers',
    name: 'fire-schedule',
    payload: FireScheduleJob,
    // The job scheduler's id; BullMQ gives each tick's job `repeat:<this>:<tick millis>`.
    id: (p) => scheduleTimerId(p.scheduleId),
  }),
  reconcile: job({
    queue: 'maintenance',
    name: 'reconcile',
    payload: ReconcileJob,
    id: () => 'reconcile',
  }),
  anchorAudit: job({
    queue: 'maintenance',
    name: 'anchor-audit',
    payload: AnchorAuditJob,
    id: () => 'anchor-audit',
  }),
  applyRetention: job({
    queue: 'maintenance',
    name: 'apply-retention',
    payload: ApplyRetentionJob,
    id: () => 'apply-retention',
  }),
} as const

/** A kind of job, by the name code uses. */
export type JobKind = keyof typeof JOBS

/** The payload of a job of kind `K`. */
export type JobPayload<K extends JobKind> = z.infer<(typeof JOBS)[K]['payload']>

/** The id a job of kind `K` with this payload gets. */
export function jobId<K extends JobKind>(kind: K, payload: JobPayload<K>): string {
  return (JOBS[kind].id as (p: JobPayload<K>) => string)(payload)
}

/** The kind of a job named `name` on queue `queue`, or undefined for a job this table lacks. */
export function jobKindOf(queue: string, name: string): JobKind | undefined {
  for (const [kind, spec] of Object.entries(JOBS)) {
    if (QUEUES[spec.queue] === queue && spec.name === name) return kind as JobKind
  }
  return undefined
}

/** Options of one enqueue. */
export interface EnqueueOptions {
  /** Run the job after this many ms (default now). */
  delayMs?: number
  /**
   * Replace a job of the same id that failed for good (its attempts spent): the repairs of the
   * reconciler must add a real job, not a no-op against a dead one.
   */
  replaceFailed?: boolean
}

/** Where jobs are added: the queue package implements it over BullMQ. */
export interface JobSink {
  /**
   * Adds a job, validated against its payload schema, with its catalogue id; adding an id that is
   * already queued is a no-op. With `replaceFailed` it looks first and resolves false when a live
   * job with that id existed (nothing added); otherwise it resolves true.
   * @throws when the queue is unreachable
   */
  enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayload<K>,
    options?: EnqueueOptions,
  ): Promise<boolean>
}
