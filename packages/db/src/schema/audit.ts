import { bigint, index, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'

/**
 * The append-only, per-tenant hash-chained audit log. The `audit-append-only` migration adds the
 * triggers refusing UPDATE, DELETE and TRUNCATE; the app role may only SELECT and INSERT.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    at: timestamptz('at').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetKind: text('target_kind').notNull(),
    targetId: text('target_id').notNull(),
    requestId: text('request_id'),
    ip: text('ip'),
    details: jsonb('details').notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [
    unique('audit_events_tenant_seq').on(t.tenantId, t.seq),
    index('audit_events_tenant_target').on(t.tenantId, t.targetId),
    index('audit_events_tenant_action').on(t.tenantId, t.action),
    tenantIsolation(),
  ],
)

/**
 * Audit events waiting for their transaction's commit to be chained. A row lives only inside the
 * transaction that inserted it: a deferred trigger (migration `audit-pending`) takes the tenant's
 * chain lock at COMMIT, appends the event to `audit_events` with the next seq and the head's hash,
 * and deletes the row, so the lock is held for the commit alone, never across a client round trip.
 */
export const auditPending = pgTable(
  'audit_pending',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    at: timestamptz('at').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetKind: text('target_kind').notNull(),
    targetId: text('target_id').notNull(),
    requestId: text('request_id'),
    ip: text('ip'),
    details: jsonb('details').notNull(),
    /** The canonical JSON the hash covers, with `seqMarker` and `prevMarker` in their places. */
    body: text('body').notNull(),
    seqMarker: text('seq_marker').notNull(),
    prevMarker: text('prev_marker').notNull(),
  },
  () => [tenantIsolation()],
)
