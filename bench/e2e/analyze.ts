import pg from 'pg'

/**
 * Gathers the planner's statistics of a system's database (`ANALYZE`), as pgbench vacuums its
 * tables before it measures. A new database has none until autovacuum's first analyze, which
 * comes at a moment of its own choosing, up to a minute or more into a measurement; before it,
 * the plans every connection cached read some rows through other indexes than the ones a
 * service with statistics uses (bench/e2e/README.md, "Plans before the first analyze").
 */
export async function analyzeDatabase(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('ANALYZE')
  } finally {
    await client.end()
  }
}
