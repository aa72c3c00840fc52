import { sql } from 'drizzle-orm'
import { check, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'

/**
 * A tenant's retention policy (retention.ts): what a graph's own `retention` does not set comes
 * from here; a tenant without a row keeps everything.
 */
export const retentionPolicies = pgTable(
  'retention_policies',
  {
    tenantId: text('tenant_id').primaryKey(),
    // "all", "none" or { "last": n }, as in a graph spec's retention.checkpoints.
    checkpoints: jsonb('checkpoints').notNull().default('"all"'),
    // Days after a run finished when it is deleted; null: runs are kept.
    runDays: integer('run_days'),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('retention_policies_run_days_check', sql`${t.runDays} is null or ${t.runDays} >= 1`),
    tenantIsolation(),
  ],
)
