import { MULTITASK_STRATEGIES, THREAD_STATUSES } from '@weave/db'
import { z } from 'zod'
import { GraphName } from './graphs.js'
import { JsonObject, PageQuery, StoredJsonObject, Text, Timestamp, pageOf } from './common.js'
import { RunSummary, RunView } from './runs.js'

/** A thread's key: chosen by the caller, unique in the tenant. */
export const ThreadKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]*$/, {
    error: 'letters, digits and . _ : @ - only, starting with a letter or digit',
  })
  .meta({ description: 'The thread key the caller chose', examples: ['support:customer-42'] })

/** `/v1/threads/{key}` params. */
export const ThreadParams = z.object({ key: ThreadKey })

/** What a thread does with a run asked for while another of its runs is active. */
export const MultitaskStrategy = z.enum(MULTITASK_STRATEGIES).meta({
  id: 'MultitaskStrategy',
  description:
    '`reject`: 409 naming the active run; `enqueue`: runs after the active ones, from the last ' +
    "one's final state; `interrupt`: the active run stops at its next step boundary keeping its " +
    'progress, and the new run starts from there; `rollback`: the active run is cancelled and ' +
    'the new run starts from the state before it',
})

/** A thread's status, from its active run. */
export const ThreadStatus = z.enum(THREAD_STATUSES).meta({
  description: '`idle`: no active run; `busy`: a run is queued or running; `waiting`: it waits',
})

/** Metadata a caller attaches to a thread (and filters threads by). */
const Metadata = JsonObject.meta({
  description: 'Free-form JSON object the caller filters threads by',
  examples: [{ customer: 'c_42', channel: 'email' }],
})

/** `PUT /v1/threads/{key}`. */
export const PutThreadBody = z
  .strictObject({
    graph: GraphName,
    version: z.int().min(1).optional().meta({
      description: "Pins the thread's runs to this version; default: each run takes the latest",
    }),
    metadata: Metadata.optional(),
    strategy: MultitaskStrategy.optional().meta({ description: 'Default `reject`' }),
  })
  .meta({
    id: 'PutThreadBody',
    examples: [{ graph: 'support', metadata: { customer: 'c_42' }, strategy: 'enqueue' }],
  })
/** `PUT /v1/threads/{key}`. */
export type PutThreadBody = z.infer<typeof PutThreadBody>

/** A thread with its latest state. */
export const ThreadView = z
  .object({
    key: z.string(),
    graph: z.string(),
    version: z.int().nullable().meta({ description: 'The pinned version; null: the latest' }),
    metadata: StoredJsonObject,
    strategy: MultitaskStrategy,
    status: ThreadStatus,
    activeRun: RunSummary.nullable().meta({ description: 'The run now active; null when idle' }),
    state: StoredJsonObject.meta({
      description:
        "The latest state of the thread's newest run (what the next run starts from), without " +
        "the engine's `__` keys",
    }),
    createdBy: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Thread' })
/** A thread with its latest state. */
export type ThreadView = z.infer<typeof ThreadView>

/** A thread without its state, as lists show it. */
export const ThreadSummary = ThreadView.omit({ state: true, activeRun: true })
  .extend({ activeRunId: z.uuid().nullable() })
  .meta({ id: 'ThreadSummary' })
/** A thread without its state. */
export type ThreadSummary = z.infer<typeof ThreadSummary>

/** `GET /v1/threads` query. */
export const ListThreadsQuery = PageQuery.extend({
  status: ThreadStatus.optional(),
  metadata: Text()
    .max(2000)
    .optional()
    .meta({
      description: 'A JSON object: only threads whose metadata contains it',
      examples: ['{"customer":"c_42"}'],
    }),
})

/** A page of threads. */
export const ThreadPage = pageOf(ThreadSummary).meta({ id: 'ThreadPage' })
/** A page of threads. */
export type ThreadPage = z.infer<typeof ThreadPage>

/** `POST /v1/threads/{key}/runs`. */
export const StartThreadRunBody = z
  .strictObject({
    input: JsonObject.default({}).meta({
      description:
        "Merged into the thread's latest state by the graph's merge policies when the run starts",
    }),
    strategy: MultitaskStrategy.optional().meta({
      description: "For this request only; default: the thread's strategy",
    }),
  })
  .meta({
    id: 'StartThreadRunBody',
    examples: [{ input: { messages: [{ role: 'user', content: 'Where is my parcel?' }] } }],
  })
/** `POST /v1/threads/{key}/runs`. */
export type StartThreadRunBody = z.infer<typeof StartThreadRunBody>

/** A run started on a thread. */
export const ThreadRunView = RunView.extend({
  thread: z.string(),
  held: z.boolean().meta({ description: "True while it waits for the thread's active run" }),
}).meta({ id: 'ThreadRun' })
/** A run started on a thread. */
export type ThreadRunView = z.infer<typeof ThreadRunView>

/** `GET /v1/threads/{key}/runs` query. */
export const ThreadRunsQuery = PageQuery

/** A page of a thread's runs, newest first. */
export const ThreadRunPage = pageOf(RunSummary).meta({ id: 'ThreadRunPage' })
/** A page of a thread's runs. */
export type ThreadRunPage = z.infer<typeof ThreadRunPage>
