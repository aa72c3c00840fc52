import { sql } from 'drizzle-orm'
import { appendAuditAtCommit, type AuditInput } from './audit.js'
import { withTenant, type Database } from './client.js'
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

const REFUSALS = {
  WV001: 'lease-lost',
  WV002: 'checkpoint-behind',
  WV003: 'approval-not-usable',
} as const

/**
 * Writes a step's checkpoint in one statement (weave_save_step): the fence (the run is running
 * under `leaseToken`), the run's checkpoint seq moving forward only, the used approval, the
 * checkpoint rows and the step's event with its webhook deliveries commit together or not at all
 * (the fence: lease.int.test.ts). The write also renews the run's lease, clears a resume request
 * it applied, completes the run when `completes` says the step ends it (migration 0035), and
 * tells whether a client has asked to cancel the run meanwhile.
 * @throws StepRefusedError when the fence refuses; the driver's error when Postgres is away
 */
export async function saveStepCheckpoint(
  database: Pick<Database, 'db' | 'pool'>,
  c: StepCheckpoint,
): Promise<{ cancelRequested: boolean }> {
  const audits = c.audits ?? []
  const values = saveStepValues(c)
  if (audits.length === 0) {
    // Named, so each pooled connection parses and plans it once: it is every step's statement.
    return saveStep(c, () =>
      database.pool.query<SavedStep>({
        name: 'weave_save_step',
        text: SAVE_STEP,
        values: withTraceParentValue(values),
      }),
    )
  }
  // The audit events commit with the checkpoint or not at all, chained after the commit.
  return withTenant(database, c.tenant, async (tx) => {
    const saved = await saveStep(c, () => tx.db.execute<SavedStep>(saveStepSql(values)))
    for (const audit of audits) await appendAuditAtCommit(tx, audit)
    return saved
  })
}

type SavedStep = { cancel_requested: boolean | null }

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

const SAVE_STEP = withTraceParentSetting(
  `select weave_save_step(${SAVE_STEP_CASTS.map((cast, i) => `$${i + 1}${cast}`).join(', ')}) as cancel_requested`,
  SAVE_STEP_CASTS.length + 1,
)

function saveStepSql(values: unknown[]) {
  const args = values.map((value, i) => sql`${value}${sql.raw(SAVE_STEP_CASTS[i]!)}`)
  return sql`select weave_save_step(${sql.join(args, sql`, `)}) as cancel_requested`
}

function saveStepValues(c: StepCheckpoint): unknown[] {
  const event = c.event ? JSON.stringify(runEventData('step.completed', c.event)) : null
  const events = JSON.stringify(
    (c.events ?? []).map(({ type, data }) => ({
      type,
      data: runEventData(type, data as RunEventData<typeof type>),
    })),
  )
  return [
    c.tenant,
    c.runId,
    c.leaseToken,
    c.ns,
    toTextArray(c.keys),
    c.value,
    c.latestKey,
    c.seq,
    c.isRoot,
    c.isFailed,
    c.approvalId ?? null,
    event === null ? null : 'step.completed',
    event,
    events,
    c.completes?.lastStep ?? null,
    c.completes?.addSteps ?? 0,
  ]
}

async function saveStep(
  c: StepCheckpoint,
  run: () => Promise<{ rows: SavedStep[] }>,
): Promise<{ cancelRequested: boolean }> {
  try {
    const result = await run()
    return { cancelRequested: result.rows[0]?.cancel_requested === true }
  } catch (err) {
    const code = pgCode(err)
    if (code !== undefined && code in REFUSALS) {
      throw new StepRefusedError(REFUSALS[code as keyof typeof REFUSALS], c.runId, { cause: err })
    }
    throw err
  }
}

/** A stored checkpoint row of a tenant, with the first-attempt seq of a retried step. */
export interface CheckpointRow {
  value: string
  /** Set while the row is a `failed` checkpoint: the seq of the step's first failed attempt. */
  attemptSeq: number | null
}

/** The checkpoint row under (ns, key) of a tenant, or undefined (weave_load_checkpoint). */
export async function loadCheckpointRow(
  database: Pick<Database, 'db'>,
  tenant: string,
  ns: string,
  key: string,
): Promise<CheckpointRow | undefined> {
  const result = await database.db.execute<{ value: string; attempt_seq: number | null }>(
    sql`select * from weave_load_checkpoint(${tenant}, ${ns}, ${key})`,
  )
  const row = result.rows[0]
  return row ? { value: row.value, attemptSeq: row.attempt_seq } : undefined
}

// A Postgres array literal, so keys containing commas, quotes or braces stay one element each.
function toTextArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`
}
