import { randomBytes, randomUUID } from 'node:crypto'
import type { Json } from '@weave/kernel'
import { type AuditContext, unchainedAudit } from './audit.js'
import type { Database } from './client.js'
import type { ConcurrencyKey } from './concurrency-keys.js'
import { IdempotencyConflictError, RunStartRefusedError } from './errors.js'
import { pgCode } from './pg-errors.js'
import { runFromJson } from './run-claim.js'
import { IDEMPOTENCY_TTL_MS, type RunRow } from './runs.js'
import { withTraceParentSetting, withTraceParentValue } from './trace-parent.js'

/** A client's start of a run, with the graph version its input was validated against. */
export interface RunStart {
  tenant: string
  graphName: string
  /** The version the input was validated against. */
  graphVersion: number
  /** That version's `graph_versions.digest`, as read when its spec was validated against. */
  digest: string
  /** The request named no version: the start needs `graphVersion` to be the latest still. */
  isLatest: boolean
  input: Json
  /** The caller (`runs.created_by`), also the audit event's actor. */
  createdBy: string
  idempotencyKey: string | null
  /** Hash of the request body (`hashJson(body)`), compared when the key is reused. */
  requestHash: string | null
  concurrency: ConcurrencyKey | null
  /** The request, recorded on the `run.started` audit event. */
  context: AuditContext
}

/** A started run, or the one the idempotency key already names (`created: false`). */
export interface StartedRun {
  run: RunRow
  created: boolean
  /** A created run's place in its concurrency key's line (1: admitted next), or null. */
  position: number | null
}

const REFUSALS = {
  WV010: 'graph-not-found',
  WV011: 'graph-archived',
  WV012: 'graph-version-changed',
} as const

// Raised with the run the key already names as the error's detail.
const IDEMPOTENCY_CONFLICT = 'WV013'

// The parameters' types of weave_start_run, in order.
const START_RUN_CASTS = [
  '',
  '::uuid',
  '',
  '::integer',
  '',
  '::boolean',
  '::jsonb',
  '',
  '',
  '',
  '::bigint',
  '',
  '::integer',
  '::uuid',
  '::timestamptz',
  '',
  '',
  '',
  '',
  '',
  '',
] as const

// Named, so each pooled connection parses and plans it once: it is every start's statement.
const START_RUN = withTraceParentSetting(
  `select weave_start_run(${START_RUN_CASTS.map((cast, i) => `$${i + 1}${cast}`).join(', ')}) as started`,
  START_RUN_CASTS.length + 1,
)

/**
 * Starts a run in one statement, its own transaction (weave_start_run): it refuses an archived
 * or missing graph and a version other than the one the input was validated against, then
 * inserts the run (or finds the one the idempotency key names, within IDEMPOTENCY_TTL_MS), places
 * it in its concurrency key's line, appends `run.queued` and the pending `run.started` audit
 * event, which the caller chains once this returns (chainPendingAudit; run-start.int.test.ts).
 * @throws RunStartRefusedError when the graph refuses; IdempotencyConflictError when the key
 *   was used with another request hash
 */
export async function startRun(database: Pick<Database, 'pool'>, s: RunStart): Promise<StartedRun> {
  const runId = randomUUID()
  // Where the run's `held` goes in the audit event's hashed body: whether it waits in its key's
  // line is decided in the database, under the key's lock.
  const held = s.concurrency === null ? null : `held-${randomBytes(16).toString('hex')}`
  const details: Json = {
    graph: s.graphName,
    version: s.graphVersion,
    ...(s.concurrency === null ? {} : { concurrencyKey: s.concurrency.key, held }),
  }
  const audit = unchainedAudit(s.tenant, {
    actor: s.createdBy,
    action: 'run.started',
    target: { kind: 'run', id: runId },
    details,
    context: s.context,
  })
  try {
    const { rows } = await database.pool.query<{ started: Record<string, unknown> }>({
      name: 'weave_start_run',
      text: START_RUN,
      values: withTraceParentValue([
        s.tenant,
        runId,
        s.graphName,
        s.graphVersion,
        s.digest,
        s.isLatest,
        JSON.stringify(s.input),
        s.createdBy,
        s.idempotencyKey,
        s.requestHash,
        IDEMPOTENCY_TTL_MS,
        s.concurrency?.key ?? null,
        s.concurrency?.limit ?? null,
        audit.unhashed.id,
        audit.unhashed.at,
        audit.unhashed.requestId,
        audit.unhashed.ip,
        audit.body,
        audit.seqMarker,
        audit.prevMarker,
        held,
      ]),
    })
    const started = rows[0]!.started
    return {
      run: runFromJson(started.run as Record<string, unknown>),
      created: started.created === true,
      position: typeof started.position === 'number' ? started.position : null,
    }
  } catch (err) {
    throw startError(err, s)
  }
}

function startError(err: unknown, s: RunStart): unknown {
  const code = pgCode(err)
  if (code !== undefined && code in REFUSALS) {
    return new RunStartRefusedError(REFUSALS[code as keyof typeof REFUSALS], s.graphName, {
      cause: err,
    })
  }
  if (code === IDEMPOTENCY_CONFLICT && s.idempotencyKey !== null) {
    return new IdempotencyConflictError(
      s.idempotencyKey,
      String((err as { detail?: unknown }).detail),
    )
  }
  return err
}
