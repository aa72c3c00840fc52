import { sql } from 'drizzle-orm'
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
 * Audit events committed with the change they record and not yet in the chain. The transaction
 * inserts its events here without any lock; after its commit, `weave_chain_audit` (migration
 * `audit-chain-after-commit`) takes the tenant's chain lock and moves every pending event of the
 * tenant into `audit_events` in `position` order, one transaction for many events, so the lock
 * is never held across the commit of the change itself.
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
    /** The transaction that appended the event: its events are chained one after the other. */
    xact: bigint('xact', { mode: 'number' })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
    /** The order events are appended in, which the chain keeps. */
    position: bigint('position', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [index('audit_pending_tenant_position').on(t.tenantId, t.position), tenantIsolation()],
)
