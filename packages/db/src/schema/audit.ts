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
