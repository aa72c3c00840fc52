import { sql } from 'drizzle-orm'
import type pg from 'pg'
import type { AuditInput } from './audit.js'
import { StepRefusedError } from './errors.js'
import { pgCode } from './pg-errors.js'
import { runEventData, type RunEventData, type RunEventType } from './run-events.js'
import { withTraceParentSetting, withTraceParentValue } from './trace-parent.js'

/** One checkpoint write of a step executed under a claim of a run. */
export interface StepCheckpoint {
  tenant: string
  /** The root run. */
  runId: string
  /** The claim's fencing token (`runs.lease_token`). */
  leaseToken: string
  /** The store's encoded namespace (`PgStore.namespaceColumn`). */
  ns: string
  /** Every key to write `value` under: the latest key, and the history key when kept. */
  keys: readonly string[]
  value: string
  /** Which of `keys` is the kernel run's latest checkpoint. */
  latestKey: string
  /** The checkpoint's seq in its kernel run. */
  seq: number
  /** True when `latestKey` is the root run's own (not a nested subgraph run's). */
  isRoot: boolean
  /** A `failed` checkpoint: the step threw. */
  isFailed: boolean
  /** The settled approval the step used, marked used in this write. */
  approvalId?: string | null
  /** The step's `step.completed` event, appended in this write. */
  event?: RunEventData<'step.completed'> | null
  /** Events of what the step did (an agent's reply, its tool calls), appended before it. */
  events?: ReadonlyArray<{ type: RunEventType; data: unknown }>
  /** Audit events of what the step did to the world, appended to the tenant's chain with it. */
  audits?: ReadonlyArray<AuditInput>
  /**
   * The run ends with this step (a root `step_done` checkpoint of a step its graph routes nowhere
   * after): the write also completes the run, as completeRun does, with its `run.completed`
   * event right after the step's. `addSteps`: the steps this execution started.
   */
  completes?: { lastStep: string; addSteps: number } | null
}

/** What a step's write tells its executor. */
export interface SavedStepWrite {
  /** A client asked to cancel the run meanwhile: the executor stops at this step boundary. */
  cancelRequested: boolean
}

/**
 * A step write's parameters of weave_save_step, taken when the write was asked for: the last
 * one is the trace parent active then, as the write may be sent later with others.
 */
export interface StepWriteValues {
  runId: string
  /** The history key, when the write keeps one (weave_save_steps' `p_history`). */
  historyKey: string | null
  values: unknown[]
}

const REFUSALS = {
  WV001: 'lease-lost',
  WV002: 'checkpoint-behind',
  WV003: 'approval-not-usable',
} as const

// The parameters' types of weave_save_step, in order.
const SAVE_STEP_CASTS = [
  '',
  '::uuid',
  '::uuid',
  '',
  '::text[]',
  '',
  '',
  '::int',
  '',
  '',
  '::uuid',
  '',
  '::jsonb',
  '::jsonb',
  '',
  '::int',
] as const

// Where saveStepValues puts each parameter.
const TENANT = 0
const RUN = 1
const TOKEN = 2
const NS = 3
const KEYS = 4
const VALUE = 5
const LATEST = 6
const SEQ = 7
const IS_ROOT = 8
const FAILED = 9
const APPROVAL = 10
const EVENT_TYPE = 11
const STEP_EVENT = 12
const EVENTS = 13
const COMPLETE_LAST_STEP = 14
const ADD_STEPS = 15
const TRACE_PARENT = SAVE_STEP_CASTS.length

const SAVE_STEP = withTraceParentSetting(
  `select weave_save_step(${SAVE_STEP_CASTS.map((cast, i) => `$${i + 1}${cast}`).join(', ')}) as cancel_requested`,
  SAVE_STEP_CASTS.length + 1,
)

const SAVE_STEPS =
  'select weave_save_steps($1::text[], $2::text[], $3::uuid[], $4::uuid[], $5::text[], ' +
  '$6::text[], $7::text[], $8::text[], $9::int[], $10::boolean[], $11::boolean[], $12::uuid[], ' +
  '$13::jsonb[], $14::jsonb[], $15::text[], $16::int[]) as cancels'

/** A step write's parameters, with the trace parent active now. */
export function stepWriteValues(c: StepCheckpoint): StepWriteValues {
  return {
    runId: c.runId,
    historyKey: c.keys[1] ?? null,
    values: withTraceParentValue(saveStepValues(c)),
  }
}

/** The write as weave_save_step inside the caller's transaction (one that also writes audits). */
export function saveStepSql(c: StepCheckpoint) {
  const args = saveStepValues(c).map((value, i) => sql`${value}${sql.raw(SAVE_STEP_CASTS[i]!)}`)
  return sql`select weave_save_step(${sql.join(args, sql`, `)}) as cancel_requested`
}

/**
 * Sends one step write as its own statement.
 * @throws StepRefusedError when the fence refuses; the driver's error otherwise
 */
export async function sendStepWrite(
  pool: pg.Pool,
  write: StepWriteValues,
): Promise<SavedStepWrite> {
  // Named, so each pooled connection parses and plans it once: it is every step's statement.
  return savedStep(write.runId, () =>
    pool.query<{ cancel_requested: boolean | null }>({
      name: 'weave_save_step',
      text: SAVE_STEP,
      values: write.values,
    }),
  )
}

/**
 * Sends several step writes of different runs as one statement (weave_save_steps), which
 * commits them all or none: each element's cancel request, in order.
 * @throws the driver's error, a refusal of any element included, when none was written
 */
export async function sendStepWrites(
  pool: pg.Pool | pg.PoolClient,
  writes: readonly StepWriteValues[],
): Promise<boolean[]> {
  const column = (i: number) => writes.map((w) => w.values[i])
  const { rows } = await pool.query<{ cancels: boolean[] }>({
    name: 'weave_save_steps',
    text: SAVE_STEPS,
    values: [
      column(TRACE_PARENT),
      column(TENANT),
      column(RUN),
      column(TOKEN),
      column(NS),
      column(LATEST),
      writes.map((w) => w.historyKey),
      column(VALUE),
      column(SEQ),
      column(IS_ROOT),
      column(FAILED),
      column(APPROVAL),
      column(STEP_EVENT),
      column(EVENTS),
      column(COMPLETE_LAST_STEP),
      column(ADD_STEPS),
    ],
  })
  return rows[0]!.cancels
}

/**
 * The largest checkpoint, in characters of its JSON text, that may share a statement: sharing
 * saves a statement's fixed cost, which a larger write's own work dwarfs, and keeps a shared
 * statement's size bounded (the state limit allows megabytes a write).
 */
export const MAX_SHARED_CHECKPOINT_CHARS = 64 * 1024

/**
 * True when the write may share a statement (weave_save_steps): its keys are its latest key,
 * then at most one history key, and its checkpoint is small.
 */
export function fitsStepWrites(c: StepCheckpoint): boolean {
  return (
    c.keys.length >= 1 &&
    c.keys.length <= 2 &&
    c.keys[0] === c.latestKey &&
    c.value.length <= MAX_SHARED_CHECKPOINT_CHARS
  )
}

/** Runs a weave_save_step statement, turning the fence's refusals into StepRefusedError. */
export async function savedStep(
  runId: string,
  run: () => Promise<{ rows: Array<{ cancel_requested: boolean | null }> }>,
): Promise<SavedStepWrite> {
  try {
    const result = await run()
    return { cancelRequested: result.rows[0]?.cancel_requested === true }
  } catch (err) {
    const code = pgCode(err)
    if (code !== undefined && code in REFUSALS) {
      throw new StepRefusedError(REFUSALS[code as keyof typeof REFUSALS], runId, { cause: err })
    }
    throw err
  }
}

function saveStepValues(c: StepCheckpoint): unknown[] {
  const event = c.event ? JSON.stringify(runEventData('step.completed', c.event)) : null
  const events = JSON.stringify(
    (c.events ?? []).map(({ type, data }) => ({
      type,
      data: runEventData(type, data as RunEventData<typeof type>),
    })),
  )
  const values: unknown[] = []
  values[TENANT] = c.tenant
  values[RUN] = c.runId
  values[TOKEN] = c.leaseToken
  values[NS] = c.ns
  values[KEYS] = toTextArray(c.keys)
  values[VALUE] = c.value
  values[LATEST] = c.latestKey
  values[SEQ] = c.seq
  values[IS_ROOT] = c.isRoot
  values[FAILED] = c.isFailed
  values[APPROVAL] = c.approvalId ?? null
  values[EVENT_TYPE] = event === null ? null : 'step.completed'
  values[STEP_EVENT] = event
  values[EVENTS] = events
  values[COMPLETE_LAST_STEP] = c.completes?.lastStep ?? null
  values[ADD_STEPS] = c.completes?.addSteps ?? 0
  return values
}

// A Postgres array literal, so keys containing commas, quotes or braces stay one element each.
function toTextArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`
}
