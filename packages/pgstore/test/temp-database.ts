import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { TEST_DATABASE_URL } from '../../../test/support/service-urls.js'

/** The server the integration tests use; each file creates its own database on it. */
export const ADMIN_URL = TEST_DATABASE_URL

/** A database made for one test file, and how to drop it. */
export interface TempDatabase {
  readonly name: string
  readonly url: string
  drop(): Promise<void>
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/**
 * Creates a database with a random name; `options` is appended to CREATE DATABASE (e.g. a
 * collation). Rejects with the server's error when the options are not supported.
 */
export async function createTempDatabase(options = ''): Promise<TempDatabase> {
  const name = `weave_pgstore_test_${randomBytes(6).toString('hex')}`
  await admin((c) => c.query(`CREATE DATABASE ${name} ${options}`))
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    drop: () =>
      admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  }
}
