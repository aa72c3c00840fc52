import { sql } from 'drizzle-orm'
import { bigint, check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { TENANT_EVENT_SUBJECTS } from '../protocol/tenant-events.js'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'

/**
 * What happened to a thread or a schedule (protocol/tenant-events.ts), appended in the
 * transaction of the change with its webhook deliveries; rows are never updated.
 */
export const tenantEvents = pgTable(
  'tenant_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // The order events were written in, also within one transaction and one millisecond.
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    tenantId: text('tenant_id').notNull(),
    subjectKind: text('subject_kind', { enum: TENANT_EVENT_SUBJECTS }).notNull(),
    // The thread's key or the schedule's id.
    subject: text('subject').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    actor: text('actor').notNull(),
    at: timestamptz('at').notNull().defaultNow(),
  },
  (t) => [
    index('tenant_events_subject_seq').on(t.tenantId, t.subjectKind, t.subject, t.seq.desc()),
    check(
      'tenant_events_subject_kind_check',
      sql.raw(`subject_kind in (${TENANT_EVENT_SUBJECTS.map((s) => `'${s}'`).join(', ')})`),
    ),
    tenantIsolation(),
  ],
)
