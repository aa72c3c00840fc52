import { CATCH_UP_POLICIES, FIRING_OUTCOMES, OVERLAP_POLICIES, SKIP_REASONS } from '@weave/db'
import { z } from 'zod'
import { GraphName } from './graphs.js'
import { JsonObject, PageQuery, StoredJsonObject, Text, Timestamp, pageOf } from './common.js'
import { ThreadKey } from './threads.js'

/** What a schedule does with a firing while the run of an earlier firing is active. */
export const OverlapPolicy = z.enum(OVERLAP_POLICIES).meta({
  id: 'OverlapPolicy',
  description:
    '`skip`: the firing starts no run (recorded as skipped, `overlap`); `enqueue` (thread ' +
    "targets only): the run waits behind the thread's active run; `allow`: the run starts " +
    "regardless (a thread target's own multitask strategy still applies)",
})

/** What a schedule does with a tick found late because every worker was down. */
export const CatchUpPolicy = z.enum(CATCH_UP_POLICIES).meta({
  id: 'CatchUpPolicy',
  description:
    '`once`: after an outage the newest missed tick fires once (older ones are not replayed); ' +
    '`skip`: a missed tick (handled more than 60 s late, or fallen while Redis had lost the ' +
    'schedule) starts no run and is recorded as skipped, `missed`',
})

const Target = z
  .strictObject({
    graph: GraphName.optional().meta({ description: 'Fire plain runs of this graph' }),
    version: z.int().min(1).optional().meta({
      description: "The graph's version to run; default: the latest at each firing",
    }),
    thread: ThreadKey.optional().meta({
      description: "Fire runs of this thread instead, each from the thread's latest state",
    }),
  })
  .refine((t) => (t.graph === undefined) !== (t.thread === undefined), {
    error: 'name either a graph or a thread',
  })
  .refine((t) => t.thread === undefined || t.version === undefined, {
    error: "a thread target runs the thread's own graph version",
    path: ['version'],
  })
  .meta({ description: 'What each firing runs: a graph (with an optional version) or a thread' })

/** `POST /v1/schedules`. */
export const CreateScheduleBody = z
  .strictObject({
    target: Target,
    cron: Text()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          'A cron expression (5 fields, or 6 with seconds first), as BullMQ reads it; give ' +
          'either `cron` or `everyMs`',
        examples: ['0 9 * * 1-5'],
      }),
    timezone: Text()
      .min(1)
      .max(64)
      .optional()
      .meta({
        description: 'The IANA time zone `cron` is read in; default `UTC`',
        examples: ['Europe/Berlin'],
      }),
    everyMs: z
      .int()
      .min(1000)
      .max(2_147_483_647)
      .optional()
      .meta({ description: 'Fire every this many milliseconds (at least 1000) instead' }),
    input: JsonObject.optional().meta({ description: "Each firing's run input; default {}" }),
    overlap: OverlapPolicy.optional().meta({ description: 'Default `skip`' }),
    catchUp: CatchUpPolicy.optional().meta({ description: 'Default `once`' }),
    paused: z.boolean().optional().meta({ description: 'Create it paused; default false' }),
  })
  .refine((b) => (b.cron === undefined) !== (b.everyMs === undefined), {
    error: 'give either cron or everyMs',
  })
  .refine((b) => b.timezone === undefined || b.cron !== undefined, {
    error: 'timezone goes with cron',
    path: ['timezone'],
  })
  .meta({
    id: 'CreateScheduleBody',
    examples: [
      {
        target: { graph: 'reconciliation' },
        cron: '0 6 * * 1',
        timezone: 'Europe/Berlin',
        input: { account: 'acc_7' },
        overlap: 'skip',
      },
    ],
  })
/** `POST /v1/schedules`. */
export type CreateScheduleBody = z.infer<typeof CreateScheduleBody>

/** A schedule. */
export const ScheduleView = z
  .object({
    id: z.uuid(),
    target: z.object({
      graph: z.string(),
      version: z.int().nullable().meta({ description: 'Null: the latest at each firing' }),
      thread: z.string().nullable().meta({ description: 'The thread key; null: plain runs' }),
    }),
    cron: z.string().nullable(),
    timezone: z.string().nullable(),
    everyMs: z.int().nullable(),
    input: StoredJsonObject,
    overlap: OverlapPolicy,
    catchUp: CatchUpPolicy,
    paused: z.boolean(),
    createdBy: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Schedule' })
/** A schedule. */
export type ScheduleView = z.infer<typeof ScheduleView>

/** `/v1/schedules/{id}` params. */
export const ScheduleParams = z.object({
  id: z.string().meta({ description: 'The schedule id (a UUID)' }),
})

/** `GET /v1/schedules`. */
export const ListSchedulesQuery = PageQuery

/** A page of schedules. */
export const SchedulePage = pageOf(ScheduleView).meta({ id: 'SchedulePage' })
/** A page of schedules. */
export type SchedulePage = z.infer<typeof SchedulePage>

/** One firing of a schedule. */
export const FiringView = z
  .object({
    id: z.uuid(),
    scheduleId: z.uuid(),
    firedAt: Timestamp,
    scheduledFor: Timestamp.nullable().meta({
      description: 'The tick the firing was for; null for a manual trigger',
    }),
    manual: z.boolean(),
    outcome: z.enum(FIRING_OUTCOMES),
    runId: z.uuid().nullable().meta({ description: 'The run it started; null when skipped' }),
    reason: z
      .enum(SKIP_REASONS)
      .nullable()
      .meta({
        description:
          'Why it started no run: `overlap` (a run of an earlier firing is active), `thread-busy` ' +
          "(the thread's strategy refused it), `missed` (late, catch-up `skip`), " +
          '`target-unavailable` (the graph, version or thread is gone or archived), ' +
          '`input-invalid` (the input does not fit the input schema of the graph version the ' +
          'firing would run; the `schedule.skipped` event names each problem)',
      }),
  })
  .meta({ id: 'ScheduleFiring' })
/** One firing. */
export type FiringView = z.infer<typeof FiringView>

/** `GET /v1/schedules/{id}/firings`. */
export const ListFiringsQuery = PageQuery

/** A page of firings. */
export const FiringPage = pageOf(FiringView).meta({ id: 'ScheduleFiringPage' })
/** A page of firings. */
export type FiringPage = z.infer<typeof FiringPage>
