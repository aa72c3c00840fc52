import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres'
import { migrate } from '@weave/pgstore'
import pg from 'pg'

/** The database the benchmark uses unless BENCH_DATABASE_URL names another. */
export const DEFAULT_BENCH_URL = 'postgres://postgres@127.0.0.1:5432/weave_bench'

/** Connections shared by every Postgres contender. */
export const POOL_SIZE = 20

/** The bare loop's table: the same columns, collation and key as PgStore's `weave_kv`. */
export const BARE_TABLE = 'bench_bare_kv'

const BARE_DDL = `CREATE TABLE IF NOT EXISTS ${BARE_TABLE} (
  ns text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ns, key)
)`

// Every table a contender writes to; LangGraph's checkpoint_migrations is left alone.
const DATA_TABLES = ['weave_kv', BARE_TABLE, 'checkpoints', 'checkpoint_blobs', 'checkpoint_writes']

/** The pool and what the report needs to know about the server. */
export interface BenchDb {
  pool: pg.Pool
  serverVersion: string
}

/**
 * Creates the database of `url` if it is missing (connecting to the same server's `postgres`
 * database to do so), opens a pool of POOL_SIZE and creates every contender's tables.
 * @throws Error when Postgres is unreachable
 */
export async function openBenchDb(url: string): Promise<BenchDb> {
  await createDatabaseIfMissing(url)
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE })
  // An idle client losing its connection must not crash the run; the next query reports it.
  pool.on('error', () => undefined)
  await migrate(pool)
  await pool.query(BARE_DDL)
  await new PostgresSaver(pool).setup()
  const { rows } = await pool.query<{ server_version: string }>('SHOW server_version')
  return { pool, serverVersion: rows[0]?.server_version ?? 'unknown' }
}

/** Empties every contender's tables, so no slice inherits another's rows or dead tuples' growth. */
export async function truncateAll(pool: pg.Pool): Promise<void> {
  await pool.query(`TRUNCATE ${DATA_TABLES.join(', ')}`)
}

async function createDatabaseIfMissing(url: string): Promise<void> {
  const target = new URL(url)
  const name = decodeURIComponent(target.pathname.slice(1))
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected database name "${name}"`)
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (rowCount === 0) {
      // Two benchmark processes racing here: the loser's "already exists" is fine.
      await client.query(`CREATE DATABASE ${name}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err
      })
    }
  } finally {
    await client.end()
  }
}
