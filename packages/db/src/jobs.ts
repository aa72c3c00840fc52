import { z } from 'zod'

/** Queue of run executions and resumes. */
export const RUNS_QUEUE = 'weave-runs'

/** Queue of delayed timers: `wait` steps and approval timeouts. */
export const TIMERS_QUEUE = 'weave-timers'

/** Queue of outbound webhook deliveries. */
export const WEBHOOKS_QUEUE = 'weave-webhooks'

/** Job names, per queue. */
export const JOB_NAMES = {
  run: 'run',
  resume: 'resume',
  waitElapsed: 'wait-elapsed',
  approvalTimeout: 'approval-timeout',
  deliver: 'deliver',
} as const

const RunId = z.uuid()
const Tenant = z.string().min(1)

/** `weave-runs` / `run`: execute a queued run. Job id: `runJobId(runId)`. */
export const RunJob = z.object({ runId: RunId, tenant: Tenant }).strict()
export type RunJob = z.infer<typeof RunJob>

/** Why a run is resumed. */
export const ResumeReason = z.enum([
  'approval-decided',
  'approval-expired',
  'input',
  'retry',
  'timer',
])
export type ResumeReason = z.infer<typeof ResumeReason>

/**
 * `weave-runs` / `resume`: resume a run with `input` merged into its state. Job id:
 * `resumeJobId(key)`, e.g. the approval id, so two racing deciders cannot resume twice.
 */
export const ResumeJob = z
  .object({
    runId: RunId,
    tenant: Tenant,
    input: z.record(z.string(), z.json()),
    reason: ResumeReason,
    // The checkpoint seq the run waited at: `input` applies only while that checkpoint is still
    // the latest, so a retried job after a crash mid-resume does not merge the input twice.
    atSeq: z.int().nonnegative().optional(),
  })
  .strict()
export type ResumeJob = z.infer<typeof ResumeJob>

/** `weave-timers` / `wait-elapsed`: a `wait` step's timer fired. Job id: `waitJobId(runId, seq)`. */
export const WaitElapsedJob = z
  .object({ runId: RunId, tenant: Tenant, step: z.string().min(1), seq: z.int().nonnegative() })
  .strict()
export type WaitElapsedJob = z.infer<typeof WaitElapsedJob>

/** `weave-timers` / `approval-timeout`: an approval's timeout passed. Job id: `approvalTimeoutJobId(id)`. */
export const ApprovalTimeoutJob = z.object({ approvalId: z.uuid(), tenant: Tenant }).strict()
export type ApprovalTimeoutJob = z.infer<typeof ApprovalTimeoutJob>

/** `weave-webhooks` / `deliver`: send a webhook delivery. Job id: `deliveryJobId(deliveryId)`. */
export const DeliverJob = z.object({ deliveryId: z.uuid(), tenant: Tenant }).strict()
export type DeliverJob = z.infer<typeof DeliverJob>

// BullMQ refuses custom job ids that contain ':' or are integers, hence the '-' separators.

/** Job id of a run's execution: the run id, so a duplicate enqueue is a no-op. */
export function runJobId(runId: string): string {
  return runId
}

/** Job id of a resume identified by `key` (an approval id, a resume request id). */
export function resumeJobId(key: string): string {
  return `resume-${key}`
}

/** Job id of a `wait` step's timer for the checkpoint `seq` of a run. */
export function waitJobId(runId: string, seq: number): string {
  return `wait-${runId}-${seq}`
}

/** Job id of an approval's timeout. */
export function approvalTimeoutJobId(approvalId: string): string {
  return `approval-timeout-${approvalId}`
}

/** Job id of a webhook delivery: one job per delivery at a time, whoever enqueues it. */
export function deliveryJobId(deliveryId: string): string {
  return `delivery-${deliveryId}`
}
