import type { Json } from '@weave/kernel'
import { and, asc, eq, gt, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { NotFoundError } from './errors.js'
import { runEvents } from './schema/run-events.js'
import { runs } from './schema/runs.js'
import { isUuid } from './uuid.js'
import { createDeliveriesForEvent } from './webhook-deliveries.js'

/** A stored run event. */
export type RunEventRow = typeof runEvents.$inferSelect

/** Every run event type (API.md "Runs"). */
export const RUN_EVENT_TYPES = [
  'run.queued',
  'run.started',
  'step.completed',
  'run.waiting',
  'approval.requested',
  'approval.decided',
  'run.resumed',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const

/** A run event type. */
export type RunEventType = (typeof RUN_EVENT_TYPES)[number]

/** Terminal event types: an event stream ends after one of them. */
export const TERMINAL_RUN_EVENT_TYPES: readonly RunEventType[] = [
  'run.completed',
  'run.failed',
  'run.cancelled',
]

/**
 * Appends an event to a run with the next sequence number. The run row is locked first, so
 * concurrent appenders take turns and the numbers stay gap-free (run-events.int.test.ts). In the
 * same transaction it creates the event's webhook deliveries (createDeliveriesForEvent), so no
 * committed event misses its deliveries.
 * @throws NotFoundError when the run does not exist in this tenant.
 */
export async function appendRunEvent(
  tx: TenantTx,
  runId: string,
  type: RunEventType,
  data: Json = {},
): Promise<RunEventRow> {
  const [run] = isUuid(runId)
    ? await tx.db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.tenantId, tx.tenant), eq(runs.id, runId)))
        .for('no key update')
    : []
  if (!run) throw new NotFoundError('run', runId)
  const [row] = await tx.db
    .insert(runEvents)
    .values({
      tenantId: tx.tenant,
      runId,
      seq: sql`(select coalesce(max(${runEvents.seq}), 0) + 1 from ${runEvents} where ${runEvents.runId} = ${runId})`,
      type,
      data,
    })
    .returning()
  const event = row as RunEventRow
  await createDeliveriesForEvent(tx, event)
  return event
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
