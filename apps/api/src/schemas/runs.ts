import { RUN_EVENT_DATA, RUN_EVENT_TYPES, RUN_STATUSES } from '@weave/db'
import { z } from 'zod'
import { GraphName } from './graphs.js'
import {
  JsonObject,
  JsonValue,
  PageQuery,
  StoredJsonObject,
  Text,
  Timestamp,
  pageOf,
} from './common.js'

const RUN_ID = '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11'
const APPROVAL_ID = '5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'

/** A run's status. */
export const RunStatus = z.enum(RUN_STATUSES)

/** A concurrency key: the caller's name for a group of runs of which at most N run at once. */
export const ConcurrencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]*$/, {
    error: 'letters, digits and . _ : @ - only, starting with a letter or digit',
  })
  .meta({ id: 'ConcurrencyKey', examples: ['refunds:c_42'] })

/** `POST /v1/runs`. */
export const StartRunBody = z
  .strictObject({
    graph: GraphName,
    version: z.int().min(1).optional().meta({ description: 'Default: the latest version' }),
    input: JsonObject.default({}).meta({
      description:
        "The run's initial state; checked against the spec's input schema. Top-level keys " +
        "must not start with `__` or be an approval step's record key (its `saveAs`)",
    }),
    concurrencyKey: ConcurrencyKey.optional().meta({
      description:
        'At most `concurrencyLimit` runs of this key (per tenant) hold a slot at once: queued ' +
        'for a worker, running, or waiting (for a person, input or a timer). A run started ' +
        'while they are all taken, or while runs wait already, waits in line (`queued`, with ' +
        'a `linePosition`) and is admitted in the order runs were started when a run of the ' +
        'key ends or is cancelled',
    }),
    concurrencyLimit: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({
        description:
          'Runs of `concurrencyKey` that may hold a slot at once (default 1). Each run keeps the ' +
          'limit it was started with and is admitted while fewer runs than that hold a slot; ' +
          'start the runs of a key with one limit',
      }),
  })
  .refine((body) => body.concurrencyLimit === undefined || body.concurrencyKey !== undefined, {
    path: ['concurrencyLimit'],
    message: 'concurrencyLimit needs a concurrencyKey',
  })
  .meta({
    id: 'StartRunBody',
    examples: [
      { graph: 'refunds', input: { amount: 120, customer: 'c_42' } },
      {
        graph: 'refunds',
        input: { amount: 80, customer: 'c_42' },
        concurrencyKey: 'refunds:c_42',
        concurrencyLimit: 1,
      },
    ],
  })
/** `POST /v1/runs`. */
export type StartRunBody = z.infer<typeof StartRunBody>

/** `POST /v1/runs` headers. */
export const StartRunHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description: 'Replays the original run for 24 h when sent again with the same body',
      examples: ['refund-c_42-2025-01-31'],
    }),
})

const WaitStep = z.string().min(1)
const AtSeq = z.int().min(0).meta({ description: 'The checkpoint at which the run waits' })

/**
 * What a waiting run waits for: an approval, outside input (`POST /v1/runs/{id}/resume`), or a
 * timer. The protocol's WaitingOn (@weave/db) as clients see it; a JSON Schema is any JSON here,
 * where the protocol's recursive JSON type has no OpenAPI form (run-views.test.ts pins the two).
 */
export const WaitingOn = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('approval'),
      step: WaitStep,
      approvalId: z.uuid(),
      approvalIds: z.array(z.uuid()).optional().meta({
        description:
          'Every approval the run waits on when an agent step asked about several tool calls of one turn at once (approvalId is the first); it resumes once all are settled',
      }),
      atSeq: AtSeq,
    }),
    z.object({
      kind: z.literal('input'),
      step: WaitStep,
      atSeq: AtSeq,
      prompt: z.string().nullable(),
      schema: JsonValue.meta({
        description: 'JSON Schema the input must satisfy; null when any JSON object will do',
      }),
      saveAs: z.string().nullable(),
    }),
    z.object({
      kind: z.literal('wait'),
      step: WaitStep,
      atSeq: AtSeq,
      until: z.iso.datetime({ offset: true }),
    }),
  ])
  .meta({
    id: 'WaitingOn',
    examples: [{ kind: 'approval', step: 'review', approvalId: RUN_ID, atSeq: 2 }],
  })

/** A run without its state, as lists show it. */
export const RunSummary = z
  .object({
    id: z.uuid(),
    graph: z.string(),
    version: z.int(),
    status: RunStatus,
    stopReason: z.string().nullable(),
    lastStep: z.string().nullable(),
    steps: z.int(),
    error: z.unknown().meta({ description: 'Why a failed run failed; null otherwise' }),
    waitingOn: WaitingOn.nullable(),
    cancelRequested: z.boolean(),
    createdBy: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    finishedAt: Timestamp.nullable(),
    forkedFrom: z.uuid().nullable(),
    forkedSeq: z.int().nullable(),
    concurrencyKey: ConcurrencyKey.nullable(),
    concurrencyLimit: z.int().nullable().meta({ description: "The limit of the run's key" }),
  })
  .meta({ id: 'RunSummary' })
/** A run without its state. */
export type RunSummary = z.infer<typeof RunSummary>

/** A run with its latest state and pending approvals. */
export const RunView = RunSummary.extend({
  state: StoredJsonObject.meta({
    description: "The latest checkpoint's state without the engine's `__` keys ({} before one)",
  }),
  pendingApprovals: z.array(z.uuid()).meta({ description: 'Ids of pending approvals' }),
  linePosition: z
    .int()
    .min(1)
    .nullable()
    .meta({
      description:
        "The run's place in its concurrency key's line (1: admitted next); null once admitted " +
        'or for a run without a key',
    }),
}).meta({
  id: 'Run',
  examples: [
    {
      id: RUN_ID,
      graph: 'refunds',
      version: 2,
      status: 'waiting',
      stopReason: 'yielded',
      lastStep: 'review',
      steps: 2,
      state: { amount: 120, customer: 'c_42', risk: 'high' },
      error: null,
      pendingApprovals: ['5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'],
      waitingOn: {
        kind: 'approval',
        step: 'review',
        approvalId: '5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
        atSeq: 2,
      },
      cancelRequested: false,
      createdBy: 'alice',
      createdAt: '2025-01-31T09:30:00.000Z',
      updatedAt: '2025-01-31T09:30:01.000Z',
      finishedAt: null,
      forkedFrom: null,
      forkedSeq: null,
      concurrencyKey: null,
      concurrencyLimit: null,
      linePosition: null,
    },
  ],
})
/** A run with its latest state and pending approvals. */
export type RunView = z.infer<typeof RunView>

const RUN_BASE = {
  id: RUN_ID,
  graph: 'refunds',
  version: 2,
  stopReason: null,
  error: null,
  cancelRequested: false,
  createdBy: 'alice',
  createdAt: '2025-01-31T09:30:00.000Z',
  finishedAt: null,
  forkedFrom: null,
  forkedSeq: null,
  concurrencyKey: null,
  concurrencyLimit: null,
  linePosition: null,
}

/** A new run as its start answers it: queued, nothing run yet. */
const QUEUED_RUN = {
  ...RUN_BASE,
  status: 'queued',
  lastStep: null,
  steps: 0,
  state: {},
  pendingApprovals: [],
  waitingOn: null,
  updatedAt: '2025-01-31T09:30:00.000Z',
}

/** Example answers of the run operations, each in the state that operation leaves a run. */
export const RUN_EXAMPLES = {
  queued: { summary: 'A new run, queued for a worker', value: QUEUED_RUN },
  forked: {
    summary: 'A fork of checkpoint 1 of another run, queued',
    value: {
      ...RUN_BASE,
      id: '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d',
      status: 'queued',
      lastStep: 'classify',
      steps: 1,
      state: { amount: 80, customer: 'c_42', risk: 'high' },
      pendingApprovals: [],
      waitingOn: null,
      updatedAt: '2025-01-31T10:00:00.000Z',
      createdAt: '2025-01-31T10:00:00.000Z',
      forkedFrom: RUN_ID,
      forkedSeq: 1,
    },
  },
  inLine: {
    summary: 'A run waiting in its concurrency key line, second to be admitted',
    value: {
      ...QUEUED_RUN,
      concurrencyKey: 'refunds:c_42',
      concurrencyLimit: 1,
      linePosition: 2,
    },
  },
  waiting: {
    summary: 'A run waiting for an approval',
    value: {
      ...RUN_BASE,
      status: 'waiting',
      stopReason: 'yielded',
      lastStep: 'review',
      steps: 2,
      state: { amount: 120, customer: 'c_42', risk: 'high' },
      pendingApprovals: [APPROVAL_ID],
      waitingOn: { kind: 'approval', step: 'review', approvalId: APPROVAL_ID, atSeq: 2 },
      updatedAt: '2025-01-31T09:30:01.000Z',
    },
  },
  cancelling: {
    summary: 'A running run, asked to stop at its next step',
    value: {
      ...RUN_BASE,
      status: 'running',
      lastStep: 'classify',
      steps: 1,
      state: { amount: 120, customer: 'c_42', risk: 'high' },
      pendingApprovals: [],
      waitingOn: null,
      cancelRequested: true,
      updatedAt: '2025-01-31T09:30:02.000Z',
    },
  },
  cancelled: {
    summary: 'A waiting run, cancelled at once',
    value: {
      ...RUN_BASE,
      status: 'cancelled',
      stopReason: 'yielded',
      lastStep: 'review',
      steps: 2,
      state: { amount: 120, customer: 'c_42', risk: 'high' },
      pendingApprovals: [],
      waitingOn: null,
      cancelRequested: true,
      updatedAt: '2025-01-31T09:31:00.000Z',
      finishedAt: '2025-01-31T09:31:00.000Z',
    },
  },
  resumeQueued: {
    summary:
      'A run waiting for input whose resume is queued (it shows `waiting` until a worker takes it)',
    value: {
      ...RUN_BASE,
      status: 'waiting',
      stopReason: 'yielded',
      lastStep: 'address',
      steps: 3,
      state: { amount: 120, customer: 'c_42' },
      pendingApprovals: [],
      waitingOn: {
        kind: 'input',
        step: 'address',
        atSeq: 3,
        prompt: 'Where should the refund be sent?',
        schema: { type: 'object', required: ['address'] },
        saveAs: null,
      },
      updatedAt: '2025-01-31T09:35:00.000Z',
    },
  },
} as const

/** `GET /v1/runs`. */
export const RunPage = pageOf(RunSummary).meta({ id: 'RunPage' })
/** `GET /v1/runs`. */
export type RunPage = z.infer<typeof RunPage>

/** `GET /v1/runs` query. */
export const ListRunsQuery = PageQuery.extend({
  status: RunStatus.optional(),
  graph: GraphName.optional(),
  concurrencyKey: ConcurrencyKey.optional(),
})

/** One history entry of a run. */
export const CheckpointInfo = z
  .object({
    seq: z.int(),
    lastStep: z.string(),
    status: z.enum(['step_done', 'yielded', 'failed']),
    yieldPhase: z.enum(['mid_step', 'after_step']).optional(),
    savedAt: Timestamp,
  })
  .meta({ id: 'CheckpointInfo' })
/** One history entry of a run. */
export type CheckpointInfo = z.infer<typeof CheckpointInfo>

/** `GET /v1/runs/{id}/history`, oldest first. */
export const RunHistory = z.object({ items: z.array(CheckpointInfo) }).meta({
  id: 'RunHistory',
  examples: [
    {
      items: [
        { seq: 1, lastStep: 'classify', status: 'step_done', savedAt: '2025-01-31T09:30:00.500Z' },
        {
          seq: 2,
          lastStep: 'review',
          status: 'yielded',
          yieldPhase: 'mid_step',
          savedAt: '2025-01-31T09:30:01.000Z',
        },
      ],
    },
  ],
})
/** `GET /v1/runs/{id}/history`. */
export type RunHistory = z.infer<typeof RunHistory>

/** One checkpoint with its state (without `__` keys). */
export const CheckpointView = CheckpointInfo.extend({ state: StoredJsonObject }).meta({
  id: 'Checkpoint',
})
/** One checkpoint with its state. */
export type CheckpointView = z.infer<typeof CheckpointView>

/** `/v1/runs/{id}/history/{seq}` path. */
export const CheckpointParams = z.object({
  id: z.string(),
  seq: z.coerce.number().int().min(0).max(2_147_483_647),
})

/** `POST /v1/runs/{id}/fork`. */
export const ForkRunBody = z
  .strictObject({
    seq: z
      .int()
      .min(0)
      .max(2_147_483_647)
      .meta({ description: 'The history entry to continue from' }),
    input: JsonObject.optional().meta({
      description:
        'Merged into the forked state (same key rules as a run input). When it changes what an ' +
        'approval used up to `seq` was approved on, the fork starts where that approval was ' +
        'asked instead (its `forkedSeq`), so a person is asked again',
    }),
  })
  .meta({ id: 'ForkRunBody', examples: [{ seq: 1, input: { amount: 80 } }] })
/** `POST /v1/runs/{id}/fork`. */
export type ForkRunBody = z.infer<typeof ForkRunBody>

const ResumeRunFields = z
  .strictObject({
    input: JsonObject.optional().meta({
      description:
        "The waiting input step's answer (checked against its schema), or state merged in " +
        'before a retry (409 when it changes what a used approval was approved on); same key ' +
        'rules as a run input',
    }),
  })
  .meta({ id: 'ResumeRunBody', examples: [{ input: { address: '1 Main St' } }] })

/** `POST /v1/runs/{id}/resume`; the body may be left out (a retry without input). */
export const ResumeRunBody = ResumeRunFields.nullish().transform((body) => body ?? {})
/** `POST /v1/runs/{id}/resume`. */
export type ResumeRunBody = z.infer<typeof ResumeRunBody>

/** The members every run event has; `id` is its sequence number within the run. */
const runEventOf = <T extends z.ZodType, D extends z.ZodType>(type: T, data: D) =>
  z.object({ id: z.int(), type, data, at: Timestamp })

/** One event type with the schema of its data, from the run protocol's catalogue. */
const TypedRunEvents = RUN_EVENT_TYPES.map((type) =>
  runEventOf(z.literal(type), RUN_EVENT_DATA[type]).meta({
    id: `RunEvent_${type.replace('.', '_')}`,
    description: `A \`${type}\` event.`,
  }),
)

/**
 * A run event. Its `data` is the payload of its type (one schema per type); an event recorded by
 * an earlier version whose data predates its type's schema is shown as it was stored.
 */
export const RunEvent = z
  .union([
    ...TypedRunEvents,
    runEventOf(z.string(), z.unknown()).meta({
      id: 'RunEvent_recorded',
      description: `An event as recorded, for data written before its type's schema. ${eventPayloads()}`,
    }),
  ])
  .meta({ id: 'RunEvent' })
/** A run event. */
export type RunEvent = z.infer<typeof RunEvent>

/**
 * One message of the run event stream (`text/event-stream`): the `id:`, `event:` and `data:`
 * lines of an event, `data` being the event as one line of JSON.
 */
export const RunEventStreamMessage = z
  .object({
    id: z.string().meta({
      description: "`id:` the event's id (its sequence number), sent back as `Last-Event-ID`",
    }),
    event: z.string().meta({ description: "`event:` the event's type", examples: ['run.queued'] }),
    // `data:` the event, as one line of JSON.
    data: RunEvent,
  })
  .meta({
    id: 'RunEventStreamMessage',
    description:
      'One Server-Sent Events message: `id:`, `event:` and `data:` lines, then a blank line. ' +
      'The stream opens with `retry: 2000` and carries `: ping` comments while idle.',
    examples: [
      {
        id: '1',
        event: 'run.queued',
        data: {
          id: 1,
          type: 'run.queued',
          data: { graph: 'refunds', version: 2 },
          at: '2025-01-31T09:30:00.000Z',
        },
      },
    ],
  })

/** `GET /v1/runs/{id}/events?format=json`, oldest first. */
export const RunEventPage = pageOf(RunEvent).meta({
  id: 'RunEventPage',
  examples: [
    {
      items: [
        {
          id: 1,
          type: 'run.queued',
          data: { graph: 'refunds', version: 2 },
          at: '2025-01-31T09:30:00.000Z',
        },
        { id: 2, type: 'run.started', data: {}, at: '2025-01-31T09:30:00.200Z' },
      ],
      nextCursor: null,
    },
  ],
})
/** `GET /v1/runs/{id}/events?format=json`. */
export type RunEventPage = z.infer<typeof RunEventPage>

// An SSE event id: the event's sequence number, as `Last-Event-ID` sends it back.
const EventSeq = z
  .string()
  .regex(/^[0-9]{1,10}$/, 'must be an event id (a sequence number)')
  .transform(Number)
  .pipe(z.int().max(2_147_483_647))

/** `GET /v1/runs/{id}/events` query. */
export const RunEventsQuery = z.object({
  format: z
    .enum(['json'])
    .optional()
    .meta({ description: '`json` for a JSON list; otherwise a `text/event-stream`' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(1000)
    .meta({ description: 'JSON list: page size' }),
  cursor: Text().min(1).max(64).optional().meta({ description: 'JSON list: `nextCursor`' }),
  lastEventId: EventSeq.optional().meta({
    description: 'Event stream: start after this event id (the `Last-Event-ID` header wins)',
    examples: ['3'],
  }),
})

/** `GET /v1/runs/{id}/events` headers. */
export const RunEventsHeaders = z.looseObject({
  'last-event-id': EventSeq.optional().meta({
    description: 'Event stream: replay only the events after this id (sent by EventSource)',
    examples: ['3'],
  }),
})

/** Each event type with the members of its payload, from the catalogue (`?`: optional). */
function eventPayloads(): string {
  return RUN_EVENT_TYPES.map((type) => {
    const schema = RUN_EVENT_DATA[type]
    // Only `run.waiting` is no object schema: its payload is a WaitingOn.
    if (!('shape' in schema)) return `\`${type}\` a WaitingOn`
    const members = Object.entries(schema.shape as Record<string, z.ZodType>).map(
      ([key, member]) => (member.safeParse(undefined).success ? `${key}?` : key),
    )
    return `\`${type}\` {${members.length > 0 ? ` ${members.join(', ')} ` : ''}}`
  }).join('; ')
}
