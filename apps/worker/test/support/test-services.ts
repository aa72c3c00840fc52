import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../../test/support/service-urls.js'

/** The Redis of the integration tests. */
export { TEST_REDIS_URL }

/** A database of the test server that one test file owns: a random name, dropped by `drop`. */
export function testDatabase(prefix: string): {
  url: string
  name: string
  suffix: string
  drop(): Promise<void>
} {
  const suffix = randomBytes(5).toString('hex')
  const name = `${prefix}_${suffix}`
  return {
    url: Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString(),
    name,
    suffix,
    async drop() {
      const admin = new pg.Client({
        connectionString: Object.assign(new URL(TEST_DATABASE_URL), {
          pathname: '/postgres',
        }).toString(),
      })
      await admin.connect()
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } finally {
        await admin.end()
      }
    },
  }
}

/** Polls `read` until `ok` holds, failing with `what` and the last value after 20 s. */
export async function until<T>(
  read: () => Promise<T> | T,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
