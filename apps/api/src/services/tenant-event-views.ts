import type { Page, TenantEventRow } from '@weave/db'
import type { TenantEventPage, TenantEventView } from '../schemas/tenant-events.js'

/** The API view of a stored thread or schedule event. */
export function toTenantEventView(row: TenantEventRow): TenantEventView {
  return {
    id: row.id,
    type: row.type as TenantEventView['type'],
    subjectKind: row.subjectKind,
    subject: row.subject,
    actor: row.actor,
    at: row.at.toISOString(),
    data: row.data as Record<string, unknown>,
  }
}

/** The API view of a page of events. */
export function toTenantEventPage(page: Page<TenantEventRow>): TenantEventPage {
  return { items: page.items.map(toTenantEventView), nextCursor: page.nextCursor }
}
