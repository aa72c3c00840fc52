import { and, desc, eq, lt, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { decodeCursor, pageSize, toPage } from './cursor.js'
import type { Page, PageOptions } from './page.js'
import {
  TENANT_EVENT_DATA,
  subjectKindOf,
  type TenantEventData,
  type TenantEventSubject,
  type TenantEventType,
} from './protocol/tenant-events.js'
import { tenantEvents } from './schema/tenant-events.js'

export {
  FiringSkipReason,
  TENANT_EVENT_DATA,
  TENANT_EVENT_SUBJECTS,
  TENANT_EVENT_TYPES,
  type TenantEventData,
  type TenantEventSubject,
  type TenantEventType,
} from './protocol/tenant-events.js'

/** A stored thread or schedule event. */
export type TenantEventRow = typeof tenantEvents.$inferSelect

/**
 * Appends a thread or schedule event and, in the same statement, one pending delivery per
 * webhook of the tenant subscribed to its type, with the payload `{ type, timestamp, data }`
 * (Standard Webhooks) whose data is the event's plus `eventId`: a change and its deliveries
 * commit or roll back together (thread-schedule-events.int.test.ts). The delivery trigger
 * notifies the worker on commit, as for run events.
 * @throws ZodError for data that is not the type's payload (protocol/tenant-events.ts)
 */
export async function appendTenantEvent<T extends TenantEventType>(
  tx: TenantTx,
  event: { type: T; subject: string; actor: string; data: TenantEventData<T> },
): Promise<TenantEventRow> {
  const data = JSON.stringify(TENANT_EVENT_DATA[event.type].parse(event.data))
  const kind = subjectKindOf(event.type)
  const result = await tx.db.execute<{
    id: string
    seq: string | number
    tenant_id: string
    subject_kind: TenantEventSubject
    subject: string
    type: string
    data: unknown
    actor: string
    at: string | Date
  }>(sql`
    with event as (
      insert into tenant_events (tenant_id, subject_kind, subject, type, data, actor)
      values (${tx.tenant}, ${kind}, ${event.subject}, ${event.type}, ${data}::jsonb,
              ${event.actor})
      returning *
    ), deliveries as (
      insert into webhook_deliveries (tenant_id, webhook_id, event_type, event_id, payload)
      select e.tenant_id, w.id, e.type, e.id, jsonb_build_object(
        'type', e.type,
        'timestamp', to_char(e.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'data', e.data || jsonb_build_object('eventId', e.id))
      from event e
      join webhooks w on w.tenant_id = e.tenant_id and w.deleted_at is null
        and e.type = any (w.events)
      returning id
    )
    select event.*, (select count(*) from deliveries) as deliveries from event`)
  const row = result.rows[0]!
  return {
    id: row.id,
    seq: Number(row.seq),
    tenantId: row.tenant_id,
    subjectKind: row.subject_kind,
    subject: row.subject,
    type: row.type,
    data: row.data,
    actor: row.actor,
    at: new Date(row.at),
  }
}

/**
 * The events of one thread (by key) or schedule (by id), newest (last written) first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listTenantEvents(
  tx: TenantTx,
  kind: TenantEventSubject,
  subject: string,
  options: PageOptions = {},
): Promise<Page<TenantEventRow>> {
  const limit = pageSize(options.limit)
  const [after] = options.cursor ? decodeCursor(options.cursor, ['number'] as const) : []
  const rows = await tx.db
    .select()
    .from(tenantEvents)
    .where(
      and(
        eq(tenantEvents.tenantId, tx.tenant),
        eq(tenantEvents.subjectKind, kind),
        eq(tenantEvents.subject, subject),
        after === undefined ? undefined : lt(tenantEvents.seq, after),
      ),
    )
    .orderBy(desc(tenantEvents.seq))
    .limit(limit + 1)
  return toPage(rows, limit, (e) => [e.seq])
}
