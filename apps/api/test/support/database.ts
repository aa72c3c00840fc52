import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { createDb, migrateDatabase, type Database } from '@weave/db'
import { TEST_DATABASE_URL } from '../../../../test/support/service-urls.js'

/** A fresh, migrated database owned by one test file. */
export interface TestDatabase {
  /** The database's URL (owner credentials), for connections of a test's own. */
  url: string
  /** Pool running as the app role, as the API does. */
  database: Database
  drop(): Promise<void>
}

/** Creates and migrates a database with a random name; `drop` closes the pool and drops it. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  await migrateDatabase({ connectionString: url.toString() })
  const database = createDb({ connectionString: url.toString(), max: 12 })
  return {
    url: url.toString(),
    database,
    drop: async () => {
      await database.close()
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await admin.connect()
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } finally {
        await admin.end()
      }
    },
  }
}

/** A random tenant id, so tests never share one. */
export function randomTenant(): string {
  return `t-${randomBytes(4).toString('hex')}`
}
