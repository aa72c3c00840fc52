import { PgStore } from '@weave/pgstore'
import type { Pool } from 'pg'

/** The checkpoint store of one tenant: rows of other tenants are out of its reach (and RLS's). */
export function tenantStore(pool: Pool, tenant: string): PgStore {
  return new PgStore({ pool, tenant })
}
