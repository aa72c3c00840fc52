import { tenantFunctionName } from './migrate.js'

/** A named (server-side prepared) statement: pg parses and plans it once per connection. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/**
 * The statements a store runs against one table. Every statement takes the store's scope
 * parameters first (none for a store without a tenant; the setting name and the tenant for a
 * tenant-bound one), then its own.
 */
export interface KvStatements {
  /** One row `{ value }`; a null or absent value means the key is missing. */
  readonly get: Statement
  readonly put: Statement
  readonly delete: Statement
  readonly putMany: Statement
  /** Keys of the namespace from the given key on (`''` lists the whole namespace). */
  readonly listFrom: Statement
  /** Keys of the namespace in `[from, to)`. */
  readonly listRange: Statement
}

/**
 * The statements of a store without a tenant, for `table` (already a validated identifier): its
 * rows are those with `tenant_id = ''`. Statement names carry the table: pg refuses one name for
 * two texts on a connection, and stores on other tables share the pool. Comparisons and ORDER BY
 * say `COLLATE "C"` so they match the primary-key index and give code point order even on a table
 * whose columns lack it.
 */
export function kvStatements(table: string): KvStatements {
  const t = `"${table}"`
  const named = (op: string, text: string): Statement => ({
    name: `weave_pgstore_${table}_${op}`,
    text,
  })
  const own = `tenant_id = ''`
  return {
    get: named('get', `SELECT value FROM ${t} WHERE ${own} AND ns = $1 AND key = $2`),
    put: named(
      'put',
      `INSERT INTO ${t} (ns, key, value) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    ),
    delete: named('delete', `DELETE FROM ${t} WHERE ${own} AND ns = $1 AND key = $2`),
    // ON CONFLICT cannot update one row twice in a statement, so callers dedupe the keys first.
    putMany: named(
      'put_many',
      `INSERT INTO ${t} (ns, key, value)
       SELECT $1::text, k, v FROM unnest($2::text[], $3::text[]) AS e(k, v)
       ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    ),
    listFrom: named(
      'list_from',
      `SELECT key FROM ${t} WHERE ${own} AND ns = $1 AND key >= $2 COLLATE "C" ORDER BY key COLLATE "C"`,
    ),
    listRange: named(
      'list_range',
      `SELECT key FROM ${t} WHERE ${own} AND ns = $1 AND key >= $2 COLLATE "C" AND key < $3 COLLATE "C"
       ORDER BY key COLLATE "C"`,
    ),
  }
}

/**
 * The statements of a tenant-bound store: each calls the table's tenant function (kvTenantDdl),
 * which sets the tenant for row-level security and touches only that tenant's rows, in one round
 * trip. `$1` is the setting name, `$2` the tenant.
 */
export function kvTenantStatements(table: string): KvStatements {
  const fn = (op: string) => `"${tenantFunctionName(table, op)}"`
  const named = (op: string, text: string): Statement => ({
    name: `weave_pgstore_${table}_tenant_${op}`,
    text,
  })
  return {
    get: named('get', `SELECT ${fn('get')}($1, $2, $3, $4) AS value`),
    put: named('put', `SELECT ${fn('put')}($1, $2, $3, $4, $5)`),
    delete: named('delete', `SELECT ${fn('delete')}($1, $2, $3, $4)`),
    putMany: named('put_many', `SELECT ${fn('put_many')}($1, $2, $3, $4::text[], $5::text[])`),
    listFrom: named('list_from', `SELECT key FROM ${fn('list')}($1, $2, $3, $4, NULL) AS key`),
    listRange: named('list_range', `SELECT key FROM ${fn('list')}($1, $2, $3, $4, $5) AS key`),
  }
}
