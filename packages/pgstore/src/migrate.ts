import type { Pool } from 'pg'
import { assertIdentifier } from './validate.js'

/** The table a PgStore uses unless told otherwise. */
export const DEFAULT_TABLE = 'weave_kv'

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
 * Creates the store table if it does not exist: safe to run again and from several processes at
 * once (they take turns on an advisory lock, since concurrent CREATE TABLE IF NOT EXISTS can fail).
 * @throws TypeError when `table` is not a plain identifier
 */
export async function migrate(pool: Pool, options: { table?: string } = {}): Promise<void> {
  const table = options.table ?? DEFAULT_TABLE
  assertIdentifier('table', table)
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK])
    await client.query(kvTableDdl(table))
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
