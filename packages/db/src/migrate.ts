import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { ensureRuntimeLogin, type RuntimeLoginSetup } from './database-role.js'

export {
  DEFAULT_OWNER_LOGIN,
  DEFAULT_RUNTIME_LOGIN,
  ensureRuntimeLogin,
  inspectDatabaseLogin,
  resolveDatabaseUrls,
  type ConfiguredDatabaseUrls,
  type DatabaseLoginReport,
  type DatabaseUrls,
  type RuntimeLoginSetup,
} from './database-role.js'

/** The app's migrations folder, `migrations/app` at the repository root. */
export const APP_MIGRATIONS_FOLDER = fileURLToPath(
  new URL('../../../migrations/app', import.meta.url),
)

/** Options of `migrateDatabase`. */
export interface MigrateDatabaseOptions {
  /** The database to create when missing and migrate; the user must be able to own tables. */
  connectionString: string
  /** Folder of drizzle-kit migrations (default `APP_MIGRATIONS_FOLDER`). */
  migrationsFolder?: string
  /**
   * The URL the API and workers will connect with: its login is created or granted `weave_app`
   * after the migrations (see `ensureRuntimeLogin`). Nothing is done about logins without it.
   */
  runtimeConnectionString?: string
}

/** What `migrateDatabase` did. */
export interface MigrateDatabaseResult {
  /** Whether the database was created by this call. */
  createdDatabase: boolean
  /** Tags of the migrations this call applied, in order (`0001_tables`, …). */
  applied: string[]
  /** What became of the runtime login, when `runtimeConnectionString` was given. */
  runtimeLogin?: RuntimeLoginSetup
}

interface JournalEntry {
  tag: string
  when: number
}

// Session-level lock key serialising concurrent migrators of one database (API and worker
// starting together): drizzle's migrator reads the last applied migration without a lock.
const MIGRATE_LOCK_KEY = 'weave:migrate'

/**
 * Creates the database named in the connection string when it is missing, then applies the
 * pending migrations as the connecting user (the tables' owner, no `SET ROLE`), then, given
 * `runtimeConnectionString`, makes sure its login exists and may act as `weave_app`. Idempotent
 * and safe to call concurrently (migrate.int.test.ts, database-role.int.test.ts).
 * @throws the driver's error when the server is unreachable or a migration fails; an Error
 *   saying what to run when the runtime login cannot be created or granted
 */
export async function migrateDatabase(
  options: MigrateDatabaseOptions,
): Promise<MigrateDatabaseResult> {
  const migrationsFolder = options.migrationsFolder ?? APP_MIGRATIONS_FOLDER
  const journal = readJournal(migrationsFolder)
  const createdDatabase = await ensureDatabase(options.connectionString)
  const client = new pg.Client({ connectionString: options.connectionString })
  await client.connect()
  try {
    // Held until the session ends below.
    await client.query('select pg_advisory_lock(hashtext($1))', [MIGRATE_LOCK_KEY])
    const before = await lastAppliedMillis(client)
    await migrate(drizzle({ client }), { migrationsFolder })
    const applied = journal.filter((e) => before === null || e.when > before).map((e) => e.tag)
    if (options.runtimeConnectionString === undefined) return { createdDatabase, applied }
    const runtimeLogin = await ensureRuntimeLogin({
      ownerConnectionString: options.connectionString,
      runtimeConnectionString: options.runtimeConnectionString,
    })
    return { createdDatabase, applied, runtimeLogin }
  } finally {
    await client.end()
  }
}

/**
 * The tags of the migrations not applied to the database yet, oldest first (all of them for a
 * database never migrated). Connect as the owner: the runtime login may not read drizzle's table.
 * @throws the driver's error when the server is unreachable or refuses the login
 */
export async function pendingMigrations(
  connectionString: string,
  migrationsFolder = APP_MIGRATIONS_FOLDER,
): Promise<string[]> {
  const journal = readJournal(migrationsFolder)
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    const last = await lastAppliedMillis(client)
    return journal.filter((e) => last === null || e.when > last).map((e) => e.tag)
  } finally {
    await client.end()
  }
}

function readJournal(folder: string): JournalEntry[] {
  const raw = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[]
  }
  return raw.entries
}

async function lastAppliedMillis(client: pg.Client): Promise<number | null> {
  const table = await client.query<{ exists: boolean }>(
    `select to_regclass('drizzle.__drizzle_migrations') is not null as exists`,
  )
  if (!table.rows[0]?.exists) return null
  const last = await client.query<{ created_at: string | null }>(
    'select max(created_at) as created_at from drizzle.__drizzle_migrations',
  )
  const value = last.rows[0]?.created_at
  return value === null || value === undefined ? null : Number(value)
}

// Another process may create the same database between our check and CREATE DATABASE.
const DUPLICATE_DATABASE = '42P04'
const UNIQUE_VIOLATION = '23505'

async function ensureDatabase(connectionString: string): Promise<boolean> {
  const url = new URL(connectionString)
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''))
  if (name === '' || name === 'postgres') return false
  url.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: url.toString() })
  await admin.connect()
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount !== 0) return false
    try {
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`)
      return true
    } catch (err) {
      const code = (err as { code?: string }).code
      if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return false
      throw err
    }
  } finally {
    await admin.end()
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
