import { type SQL, and, asc, eq, gt, sql } from 'drizzle-orm'
import { pendingAuditInsert, type AuditInput } from './audit.js'
import { chainAuditAfterCommit } from './audit-pending-chain.js'
import type { TenantTx } from './client.js'
import { NotFoundError } from './errors.js'
import { pgCode } from './pg-errors.js'
import { RUN_EVENT_DATA, type RunEventData, type RunEventType } from './protocol/run-events.js'
import { runEvents } from './schema/run-events.js'
import { isUuid } from './uuid.js'

export {
  RUN_EVENT_DATA,
  RUN_EVENT_TYPES,
  ResumeReason,
  TERMINAL_RUN_EVENT_TYPES,
  type RunEventData,
  type RunEventType,
} from './protocol/run-events.js'

/** A stored run event. */
export type RunEventRow = typeof runEvents.$inferSelect

// Raised by weave_append_run_event for a run this tenant does not have.
const RUN_MISSING = 'WV404'

/**
 * Checks an event's data against the catalogue (protocol/run-events.ts): a writer that drifts
 * from it fails here, before anything is stored.
 * @throws ZodError when `data` is not the type's payload
 */
export function runEventData<T extends RunEventType>(
  type: T,
  data: RunEventData<T>,
): RunEventData<T> {
  return RUN_EVENT_DATA[type].parse(data) as RunEventData<T>
}

/**
 * Appends an event to a run with the run's next sequence number, in one statement
 * (weave_append_run_event): the run row's counter hands out numbers, so concurrent appenders take
 * turns and the numbers stay gap-free (run-events.int.test.ts), and the event's webhook
 * deliveries are created in the same transaction, so no committed event misses them.
 * @throws NotFoundError when the run does not exist in this tenant; ZodError for data that is
 *   not the type's payload.
 */
export async function appendRunEvent<T extends RunEventType>(
  tx: TenantTx,
  runId: string,
  type: T,
  data: RunEventData<T>,
): Promise<RunEventRow> {
  return appendRunEventWith(tx, runId, type, data, null)
}

/**
 * Appends a run event (see {@link appendRunEvent}) and an audit event joining the tenant's chain
 * after the commit (see appendAuditAtCommit) in one statement: one round trip for what a change of a
 * run puts on both records.
 * @throws {NotFoundError} when the run does not exist in this tenant
 */
export async function appendRunEventAndAudit<T extends RunEventType>(
  tx: TenantTx,
  runId: string,
  type: T,
  data: RunEventData<T>,
  audit: AuditInput,
): Promise<RunEventRow> {
  return appendRunEventWith(tx, runId, type, data, audit)
}

/**
 * The call appending a run event (weave_append_run_event, as {@link appendRunEvent} does) with
 * its data checked against the catalogue, for a statement that does more in the same round trip.
 * @throws ZodError when `data` is not the type's payload
 */
export function runEventAppendCall<T extends RunEventType>(
  tx: TenantTx,
  runId: string,
  type: T,
  data: RunEventData<T>,
): SQL {
  const payload = JSON.stringify(runEventData(type, data))
  return sql`weave_append_run_event(${tx.tenant}, ${runId}::uuid, ${type}, ${payload}::jsonb)`
}

async function appendRunEventWith<T extends RunEventType>(
  tx: TenantTx,
  runId: string,
  type: T,
  data: RunEventData<T>,
  audit: AuditInput | null,
): Promise<RunEventRow> {
  if (!isUuid(runId)) throw new NotFoundError('run', runId)
  const append = runEventAppendCall(tx, runId, type, data)
  // The audit event's insert is a data-modifying WITH query: it runs whatever the rest reads.
  const statement =
    audit === null
      ? sql`select * from ${append}`
      : sql`with audit as (${pendingAuditInsert(tx.tenant, audit).insert} returning 1)
          select e.* from ${append} e`
  try {
    const result = await tx.db.execute<{
      tenant_id: string
      run_id: string
      seq: number
      type: string
      data: unknown
      at: string | Date
    }>(statement)
    if (audit !== null) chainAuditAfterCommit(tx)
    const row = result.rows[0]!
    return {
      tenantId: row.tenant_id,
      runId: row.run_id,
      seq: row.seq,
      type: row.type,
      data: row.data,
      at: new Date(row.at),
    }
  } catch (err) {
    if (pgCode(err) === RUN_MISSING) throw new NotFoundError('run', runId)
    throw err
  }
}

/** Options of `listRunEvents`. */
export interface ListRunEventsOptions {
  /** Only events with a greater sequence number (SSE `Last-Event-ID`); default 0. */
  afterSeq?: number
  /** At most this many events (default 1000). */
  limit?: number
}

/** A run's events in order, after `afterSeq`; empty for an unknown run. */
export async function listRunEvents(
  tx: TenantTx,
  runId: string,
  options: ListRunEventsOptions = {},
): Promise<RunEventRow[]> {
  if (!isUuid(runId)) return []
  const afterSeq = Number.isSafeInteger(options.afterSeq) ? (options.afterSeq as number) : 0
  const requested = Number.isFinite(options.limit) ? Math.trunc(options.limit as number) : 1000
  const limit = Math.min(10_000, Math.max(1, requested))
  return tx.db
    .select()
    .from(runEvents)
    .where(
      and(
        eq(runEvents.tenantId, tx.tenant),
        eq(runEvents.runId, runId),
        gt(runEvents.seq, Math.max(0, Math.min(afterSeq, 2_147_483_647))),
      ),
    )
    .orderBy(asc(runEvents.seq))
    .limit(limit)
}
