/** A named (server-side prepared) statement: pg parses and plans it once per connection. */
export interface Statement {
  readonly name: string
  readonly text: string
}

/** The statements a store runs against one table. */
export interface KvStatements {
  readonly get: Statement
  readonly put: Statement
  readonly delete: Statement
  readonly putMany: Statement
  /** Keys of `$1` from `$2` on (`$2 = ''` lists the whole namespace). */
  readonly listFrom: Statement
  /** Keys of `$1` in `[$2, $3)`. */
  readonly listRange: Statement
}

/**
 * The statements for `table`, which must already be a validated identifier. Statement names carry
 * the table: pg refuses one name for two texts on a connection, and stores on other tables share
 * the pool. Comparisons and ORDER BY say `COLLATE "C"` so they match the primary-key index and give
 * code point order even on a table whose columns lack it.
 */
export function kvStatements(table: string): KvStatements {
  const t = `"${table}"`
  const named = (op: string, text: string): Statement => ({
    name: `weave_pgstore_${table}_${op}`,
    text,
  })
  return {
    get: named('get', `SELECT value FROM ${t} WHERE ns = $1 AND key = $2`),
    put: named(
      'put',
      `INSERT INTO ${t} (ns, key, value) VALUES ($1, $2, $3)
       ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    ),
    delete: named('delete', `DELETE FROM ${t} WHERE ns = $1 AND key = $2`),
    // ON CONFLICT cannot update one row twice in a statement, so callers dedupe the keys first.
    putMany: named(
      'put_many',
      `INSERT INTO ${t} (ns, key, value)
       SELECT $1::text, k, v FROM unnest($2::text[], $3::text[]) AS e(k, v)
       ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    ),
    listFrom: named(
      'list_from',
      `SELECT key FROM ${t} WHERE ns = $1 AND key >= $2 COLLATE "C" ORDER BY key COLLATE "C"`,
    ),
    listRange: named(
      'list_range',
      `SELECT key FROM ${t} WHERE ns = $1 AND key >= $2 COLLATE "C" AND key < $3 COLLATE "C"
       ORDER BY key COLLATE "C"`,
    ),
  }
}
