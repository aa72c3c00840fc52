import { z } from 'zod'
import { MULTITASK_STRATEGIES } from '../schema/threads.js'

const ThreadKey = z.string().min(1)

/** Why a firing started no run. */
export const SKIP_REASONS = [
  // The run of an earlier firing is still active and the overlap policy is `skip`.
  'overlap',
  // The target thread's active run refused the new one (its strategy is `reject`).
  'thread-busy',
  // The tick was missed (handled later than LATE_FIRING_MS after its time, or fell while Redis
  // had lost the job scheduler) and the catch-up policy is `skip`.
  'missed',
  // The graph (or the version named) is gone or archived, or the target thread is archived.
  'target-unavailable',
  // The schedule's input does not fit the input schema of the graph version the firing would
  // run (a version registered after the schedule was created may have changed it).
  'input-invalid',
] as const

/** Why a firing started no run. */
export type SkipReason = (typeof SKIP_REASONS)[number]

/** Why a firing started no run. */
export const FiringSkipReason = z.enum(SKIP_REASONS)

const Problem = z.object({ path: z.string(), message: z.string() })

const ScheduleTarget = z.object({
  graph: z.string(),
  version: z.int().nullable(),
  thread: z.string().nullable(),
})

/**
 * Every thread and schedule event type and the schema of its `data`: what the writers
 * (appendTenantEvent), the events endpoints and the webhook payloads share. Each event's
 * `subject` is the thread's key or the schedule's id.
 */
export const TENANT_EVENT_DATA = {
  'thread.created': z.object({
    thread: ThreadKey,
    graph: z.string(),
    version: z.int().nullable(),
    strategy: z.enum(MULTITASK_STRATEGIES),
  }),
  'thread.updated': z.object({
    thread: ThreadKey,
    /** What the request replaced. */
    changed: z.array(z.enum(['metadata', 'strategy'])),
    strategy: z.enum(MULTITASK_STRATEGIES),
  }),
  'thread.archived': z.object({ thread: ThreadKey }),
  'thread.run.queued': z.object({
    thread: ThreadKey,
    runId: z.uuid(),
    strategy: z.enum(MULTITASK_STRATEGIES),
    /** True when the run waits for the thread's active run to end. */
    held: z.boolean(),
    schedule: z.uuid().optional(),
  }),
  'thread.run.interrupted': z.object({
    thread: ThreadKey,
    /** The run that interrupted them; it starts from their latest state. */
    runId: z.uuid(),
    superseded: z.array(z.uuid()),
  }),
  'thread.run.rolled_back': z.object({
    thread: ThreadKey,
    /** The run that rolled them back; it starts from the state they started from. */
    runId: z.uuid(),
    superseded: z.array(z.uuid()),
  }),
  'schedule.created': z.object({
    schedule: z.uuid(),
    target: ScheduleTarget,
    cron: z.string().nullable(),
    timezone: z.string().nullable(),
    everyMs: z.int().nullable(),
    paused: z.boolean(),
  }),
  'schedule.paused': z.object({ schedule: z.uuid() }),
  'schedule.resumed': z.object({ schedule: z.uuid() }),
  'schedule.deleted': z.object({ schedule: z.uuid() }),
  'schedule.fired': z.object({
    schedule: z.uuid(),
    firingId: z.uuid(),
    tick: z.string(),
    manual: z.boolean(),
    runId: z.uuid(),
    /** True when the run waits for its thread's active run to end. */
    held: z.boolean(),
  }),
  'schedule.skipped': z.object({
    schedule: z.uuid(),
    firingId: z.uuid(),
    tick: z.string(),
    manual: z.boolean(),
    reason: FiringSkipReason,
    /** For `input-invalid`: where the schedule's input does not fit the graph's input schema. */
    problems: z.array(Problem).optional(),
  }),
} as const

/** A thread or schedule event type. */
export type TenantEventType = keyof typeof TENANT_EVENT_DATA

/** The data of a thread or schedule event type. */
export type TenantEventData<T extends TenantEventType> = z.infer<(typeof TENANT_EVENT_DATA)[T]>

/** Every thread and schedule event type, in catalogue order. */
export const TENANT_EVENT_TYPES = Object.keys(TENANT_EVENT_DATA) as [
  TenantEventType,
  ...TenantEventType[],
]

/** What a thread or schedule event is about. */
export const TENANT_EVENT_SUBJECTS = ['thread', 'schedule'] as const

/** What a thread or schedule event is about. */
export type TenantEventSubject = (typeof TENANT_EVENT_SUBJECTS)[number]

/** The kind of subject an event type belongs to. */
export function subjectKindOf(type: TenantEventType): TenantEventSubject {
  return type.startsWith('thread.') ? 'thread' : 'schedule'
}
