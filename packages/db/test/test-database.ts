import { randomBytes } from 'node:crypto'
import pg from 'pg'
import {
  type Database,
  type RunRow,
  type TenantTx,
  createDb,
  createRun,
  migrateDatabase,
  openApproval,
  registerGraphVersion,
  type OpenApprovalInput,
  withTenant,
} from '@weave/db'
import { TEST_DATABASE_URL } from '../../../test/support/service-urls.js'

/** A fresh, migrated database owned by one test file. */
export interface TestDatabase {
  url: string
  name: string
  /** Pool running as the app role, as the API and workers do. */
  app: Database
  /** Pool connected as the owner (no SET ROLE), for what only the owner may do. */
  owner: pg.Pool
  drop(): Promise<void>
}

/** A database URL on the test server with a random name. */
export function randomDatabaseUrl(prefix: string): { url: string; name: string } {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), name }
}

/** Drops a test database, closing whatever connections remain. */
export async function dropDatabase(name: string): Promise<void> {
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: url.toString() })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}

/** Creates and migrates a database for one test file. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const { url, name } = randomDatabaseUrl(prefix)
  await migrateDatabase({ connectionString: url })
  const app = createDb({ connectionString: url, max: 8 })
  const owner = new pg.Pool({ connectionString: url, max: 2 })
  return {
    url,
    name,
    app,
    owner,
    drop: async () => {
      await app.close()
      // pool.end() resolves before its clients' connections have closed; the forced drop below
      // then terminates them, which an idle client reports as an error on its pool.
      owner.on('error', () => undefined)
      await owner.end()
      await dropDatabase(name)
    },
  }
}

/** A random tenant id, so tests never share one. */
export function randomTenant(): string {
  return `t-${randomBytes(4).toString('hex')}`
}

/** Registers a one-step graph and starts a run of it. */
export async function seedRun(
  tx: TenantTx,
  options: { createdBy?: string; graph?: string } = {},
): Promise<RunRow> {
  const graph = options.graph ?? 'g'
  const version = await registerGraphVersion(tx, {
    name: graph,
    spec: { entry: 'a', steps: { a: { kind: 'set', values: {} } } },
    createdBy: 'author',
  })
  const { run } = await createRun(tx, {
    graphName: graph,
    graphVersion: version.version,
    input: {},
    createdBy: options.createdBy ?? 'starter',
  })
  return run
}

/** Shorthand: a run seeded in its own transaction. */
export async function seedRunIn(
  database: Database,
  tenant: string,
  options: { createdBy?: string; graph?: string } = {},
): Promise<RunRow> {
  return withTenant(database, tenant, (tx) => seedRun(tx, options))
}

/** A run started by `starter` with a pending approval of its step `review`, at seq 1. */
export async function seedApprovalIn(
  database: Database,
  tenant: string,
  options: Partial<OpenApprovalInput> = {},
): Promise<{ approvalId: string; runId: string }> {
  const run = await seedRunIn(database, tenant, { createdBy: 'starter' })
  const { approval } = await withTenant(database, tenant, (tx) =>
    openApproval(tx, { runId: run.id, step: 'review', seq: 1, title: 'Refund 10?', ...options }),
  )
  return { approvalId: approval.id, runId: run.id }
}

/**
 * The Postgres error under a (drizzle-wrapped) rejection: its SQLSTATE and message, and the
 * constraint and table it names, when it names them.
 */
export async function pgErrorOf(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; constraint?: string; table?: string }> {
  try {
    await promise
  } catch (err) {
    let e: unknown = err
    while (e instanceof Error && !('code' in e && typeof e.code === 'string') && e.cause)
      e = e.cause
    const { code, message, constraint, table } = e as {
      code?: string
      message?: string
      constraint?: string
      table?: string
    }
    return {
      code: code ?? '',
      message: message ?? String(e),
      ...(constraint === undefined ? {} : { constraint }),
      ...(table === undefined ? {} : { table }),
    }
  }
  throw new Error('expected the promise to reject')
}

/**
 * Runs `write` on one connection of the test database, as the app role, in a transaction of its
 * own, and counts the row versions it made of `runs` and the calls of the runs' row-rules trigger
 * (weave_run_row_rules): pg_stat_xact_user_tables and pg_stat_get_xact_function_calls count the
 * open transaction's own, before any statistics are flushed.
 */
export async function runsUpdatedBy<T>(
  t: TestDatabase,
  write: (database: Pick<Database, 'db' | 'pool'>) => Promise<T>,
): Promise<{ result: T; updates: number; rowRuleChecks: number }> {
  const client = await t.owner.connect()
  const updatesSoFar = async () =>
    Number(
      (
        await client.query<{ n: string }>(
          `select n_tup_upd as n from pg_stat_xact_user_tables where relid = 'runs'::regclass`,
        )
      ).rows[0]!.n,
    )
  const rowRuleChecksSoFar = async () =>
    Number(
      (
        await client.query<{ n: string | null }>(
          `select pg_stat_get_xact_function_calls('weave_run_row_rules'::regproc) as n`,
        )
      ).rows[0]!.n ?? 0,
    )
  try {
    await client.query('begin')
    await client.query(`set local track_functions = 'pl'`)
    const checksBefore = await rowRuleChecksSoFar()
    await client.query('set local role weave_app')
    const before = await updatesSoFar()
    // The writes under test send their statements on `pool` only.
    const result = await write({ pool: client } as unknown as Pick<Database, 'db' | 'pool'>)
    const updates = (await updatesSoFar()) - before
    const rowRuleChecks = (await rowRuleChecksSoFar()) - checksBefore
    await client.query('commit')
    return { result, updates, rowRuleChecks }
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
}
