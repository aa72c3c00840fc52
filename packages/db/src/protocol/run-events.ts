import { AGENT_EVENT_DATA } from '@weave/spec'
import { z } from 'zod'
import { DECISIONS } from '../schema/approvals.js'
import { WaitingOn } from './waiting-on.js'

const Step = z.string().min(1)

/** Why a run was resumed (also a resume job's reason). */
export const ResumeReason = z.enum([
  'approval-decided',
  'approval-expired',
  'input',
  'retry',
  'timer',
  'run',
])
/** Why a run was resumed. */
export type ResumeReason = z.infer<typeof ResumeReason>

/**
 * Every run event type and the schema of its `data`: the one definition the writers
 * (appendRunEvent, the step checkpoint), the API's event schema, SSE and webhook payloads share.
 */
export const RUN_EVENT_DATA = {
  'run.queued': z.object({
    graph: z.string(),
    version: z.int(),
    forkedFrom: z.uuid().optional(),
    forkedSeq: z.int().optional(),
    /** The thread the run belongs to, and whether it waits for the thread's active run. */
    thread: z.string().optional(),
    held: z.boolean().optional(),
    /** The schedule whose firing started the run. */
    schedule: z.uuid().optional(),
    /** The run's concurrency key; `held` says whether it waits in the key's line. */
    concurrencyKey: z.string().optional(),
  }),
  /** A run that waited in its concurrency key's line took a free slot. */
  'run.admitted': z.object({ concurrencyKey: z.string() }),
  'run.started': z.object({}),
  'step.completed': z.object({
    /** The step's path from the root run (`review/approve` inside subgraph step `review`). */
    step: Step,
    seq: z.int().positive(),
  }),
  'run.waiting': WaitingOn,
  'approval.requested': z.object({
    approvalId: z.uuid(),
    step: Step,
    title: z.string(),
    details: z.json().nullable(),
    materialHash: z.string(),
    required: z.int().positive(),
    expiresAt: z.iso.datetime().nullable(),
  }),
  'approval.decided': z.object({
    approvalId: z.uuid(),
    step: Step,
    /** The approval's status after this decision (`pending` until it settles). */
    status: z.enum(['pending', 'approved', 'rejected', 'expired']),
    /** The deciding subject; null for an expiry. */
    by: z.string().nullable(),
    decision: z.enum(DECISIONS).nullable(),
    comment: z.string().nullable(),
  }),
  'run.resumed': z.object({ reason: ResumeReason }),
  'run.completed': z.object({ steps: z.int().nonnegative(), lastStep: z.string() }),
  'run.failed': z.object({
    name: z.string(),
    message: z.string(),
    step: z.string().nullable(),
    stopReason: z.string(),
  }),
  /** `by`: the subject who cancelled it. */
  'run.cancelled': z.object({ by: z.string().nullable() }),
  // An agent step's units of work: its replies and how each tool call was settled.
  ...AGENT_EVENT_DATA,
} as const

/** A run event type. */
export type RunEventType = keyof typeof RUN_EVENT_DATA

/** Every run event type, in the order a run usually emits them. */
export const RUN_EVENT_TYPES = Object.keys(RUN_EVENT_DATA) as [RunEventType, ...RunEventType[]]

/** The `data` of a run event of type `T`. */
export type RunEventData<T extends RunEventType> = z.infer<(typeof RUN_EVENT_DATA)[T]>

/** Terminal event types: an event stream ends after one of them. */
export const TERMINAL_RUN_EVENT_TYPES: readonly RunEventType[] = [
  'run.completed',
  'run.failed',
  'run.cancelled',
]
