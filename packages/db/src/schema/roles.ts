import { sql } from 'drizzle-orm'
import { pgPolicy, pgRole } from 'drizzle-orm/pg-core'

/** Name of the role the API and workers run as: it owns no table and does not bypass RLS. */
export const APP_ROLE = 'weave_app'

/** Transaction-local setting that carries the tenant of the current transaction. */
export const TENANT_SETTING = 'weave.tenant'

/**
 * Transaction-local setting that carries the W3C `traceparent` of the span active when the
 * transaction began (withTenant), for rows created in it to continue that trace.
 */
export const TRACE_PARENT_SETTING = 'weave.traceparent'

/** The application role; created by the `app-role` migration, so drizzle-kit only refers to it. */
export const appRole = pgRole(APP_ROLE).existing()

/**
 * The row-level security policy every table carries: the app role sees and writes only rows of
 * the tenant set for the transaction, and nothing when no tenant is set (rls.int.test.ts).
 */
export function tenantIsolation(tenantColumn = 'tenant_id') {
  const isOwnTenant = sql.raw(`${tenantColumn} = current_setting('${TENANT_SETTING}', true)`)
  return pgPolicy('tenant_isolation', {
    as: 'permissive',
    for: 'all',
    to: appRole,
    using: isOwnTenant,
    withCheck: isOwnTenant,
  })
}
