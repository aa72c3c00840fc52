import type { Pool } from 'pg'
import { assertIdentifier } from './validate.js'

/** The table a PgStore uses unless told otherwise. */
export const DEFAULT_TABLE = 'weave_kv'

/** The longest table name whose function names (`<table>_t_put_many`) stay identifiers. */
export const MAX_TABLE_LENGTH = 54

// Any constant works; it only has to be the same in every process running the migration.
const MIGRATION_LOCK = 'weave_pgstore_migrate'

/** The DDL of a store table named `table` (already validated), idempotent. */
export function kvTableDdl(table: string): string {
  return `-- @weave/pgstore: the kernel's Store, one row per (namespace, key).
-- ns and key are COLLATE "C", so the primary-key index and ORDER BY key follow UTF-8 byte order
-- (Unicode code point order) whatever the database's default collation.
-- ns is "<code points in the store's prefix>:<prefix><namespace>", e.g. 0:checkpoint:greeter.
CREATE TABLE IF NOT EXISTS "${table}" (
  ns text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ns, key)
);
`
}

/** The text of migrations/pgstore/0001_weave_kv.sql (pinned by migrate.test.ts). */
export const WEAVE_KV_MIGRATION = kvTableDdl(DEFAULT_TABLE)

/**
 * The DDL that gives a store table (already validated) its tenant column and the functions of
 * tenant-bound stores, idempotent. Rows of stores without a tenant keep `tenant_id = ''`.
 */
export function kvTenantDdl(table: string): string {
  const t = `"${table}"`
  const fn = (op: string) => `"${tenantFunctionName(table, op)}"`
  const lit = table.replace(/'/g, "''")
  // Every function sets the tenant for its own statement (is_local: the setting ends with the
  // transaction, which for a statement outside BEGIN is the statement itself), so row-level
  // security on tenant_id binds a store without a transaction of its own. SECURITY INVOKER: the
  // caller's role, and so its policies, apply inside.
  const head = (name: string, args: string, returns: string) =>
    `CREATE OR REPLACE FUNCTION ${fn(name)}(p_setting text, p_tenant text, ${args})
RETURNS ${returns} LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM set_config(p_setting, p_tenant, true);`
  return `-- @weave/pgstore: tenant-bound stores. Each row carries its tenant; a store made with
-- { tenant } reads and writes only that tenant's rows through the functions below, which set the
-- tenant for row-level security (see the package README).
ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS tenant_id text COLLATE "C" NOT NULL DEFAULT '';
DO $pk$
DECLARE pk text;
BEGIN
  SELECT conname INTO pk FROM pg_constraint WHERE conrelid = '${lit}'::regclass AND contype = 'p';
  IF pk IS NULL OR NOT EXISTS (
    SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE i.indrelid = '${lit}'::regclass AND i.indisprimary AND a.attname = 'tenant_id'
  ) THEN
    IF pk IS NOT NULL THEN EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', '${lit}', pk); END IF;
    ALTER TABLE ${t} ADD PRIMARY KEY (tenant_id, ns, key);
  END IF;
END
$pk$;
${head('get', 'p_ns text, p_key text', 'text')}
  RETURN (SELECT value FROM ${t} WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_key);
END
$fn$;
${head('put', 'p_ns text, p_key text, p_value text', 'void')}
  INSERT INTO ${t} (tenant_id, ns, key, value) VALUES (p_tenant, p_ns, p_key, p_value)
  ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
END
$fn$;
${head('put_many', 'p_ns text, p_keys text[], p_values text[]', 'void')}
  INSERT INTO ${t} (tenant_id, ns, key, value)
  SELECT p_tenant, p_ns, k, v FROM unnest(p_keys, p_values) AS e(k, v)
  ON CONFLICT (tenant_id, ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now();
END
$fn$;
${head('delete', 'p_ns text, p_key text', 'void')}
  DELETE FROM ${t} WHERE tenant_id = p_tenant AND ns = p_ns AND key = p_key;
END
$fn$;
${head('list', 'p_ns text, p_from text, p_to text', 'SETOF text')}
  RETURN QUERY SELECT key FROM ${t}
  WHERE tenant_id = p_tenant AND ns = p_ns AND key >= p_from COLLATE "C"
    AND (p_to IS NULL OR key < p_to COLLATE "C")
  ORDER BY key COLLATE "C";
END
$fn$;
`
}

/** The text of migrations/pgstore/0002_tenant.sql (pinned by migrate.test.ts). */
export const WEAVE_KV_TENANT_MIGRATION = kvTenantDdl(DEFAULT_TABLE)

/** The name of a tenant-bound store's function `op` on `table`. */
export function tenantFunctionName(table: string, op: string): string {
  return `${table}_t_${op}`
}

/**
 * Creates the store table if it does not exist, with its tenant column and functions: safe to run
 * again and from several processes at once (they take turns on an advisory lock, since concurrent
 * CREATE TABLE IF NOT EXISTS can fail).
 * @throws TypeError when `table` is not a plain identifier of at most 54 characters
 */
export async function migrate(pool: Pool, options: { table?: string } = {}): Promise<void> {
  const table = options.table ?? DEFAULT_TABLE
  assertIdentifier('table', table, MAX_TABLE_LENGTH)
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK])
    await client.query(kvTableDdl(table))
    await client.query(kvTenantDdl(table))
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))
    })
    throw err
  } finally {
    client.release(broken)
  }
}
