import { pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'
import { runs } from './runs.js'

/**
 * The event streams watching a run, one row per stream (`watcher`) until it ends or
 * `expires_at` passes: the `run_events_notify` trigger announces a run's events only while a
 * live row exists (run-event-watches.int.test.ts). A deleted run takes its watches with it.
 */
export const runEventWatches = pgTable(
  'run_event_watches',
  {
    tenantId: text('tenant_id').notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    watcher: uuid('watcher').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  // No index on expires_at: the table holds a row per open stream, and its sweep reads it whole.
  (t) => [primaryKey({ columns: [t.runId, t.watcher] }), tenantIsolation()],
)
