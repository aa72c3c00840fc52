import { pgTable, text } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'

/** Tenants known to Weave; a row is added the first time a tenant registers a graph. */
export const tenants = pgTable(
  'tenants',
  {
    id: text('id').primaryKey(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  () => [tenantIsolation('id')],
)
