import { integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'
import { runs } from './runs.js'

/** A run's events, numbered 1, 2, … without gaps per run. */
export const runEvents = pgTable(
  'run_events',
  {
    tenantId: text('tenant_id').notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').notNull().default({}),
    at: timestamptz('at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] }), tenantIsolation()],
)
