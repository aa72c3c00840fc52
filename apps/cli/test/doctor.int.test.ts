import { randomBytes } from 'node:crypto'
import { migrateDatabase } from '@weave/db'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import { main } from '../src/main.js'

const suffix = randomBytes(4).toString('hex')
const migrated = `weave_cli_doctor_${suffix}`
const empty = `weave_cli_doctor_empty_${suffix}`
const login = `weave_test_doctor_${suffix}`

function url(options: { user?: string; database?: string } = {}): string {
  const result = new URL(TEST_DATABASE_URL)
  if (options.user) result.username = options.user
  if (options.database) result.pathname = `/${options.database}`
  return result.toString()
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Runs `weave doctor` with `env` only; resolves to its exit status and output. */
async function doctor(env: Record<string, string>) {
  let stdout = ''
  const code = await main(['doctor'], {
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stdout += text
    },
    env: { WEAVE_JWT_SECRET: 'd'.repeat(40), REDIS_URL: TEST_REDIS_URL, ...env },
  })
  return { code, stdout }
}

beforeAll(async () => {
  await migrateDatabase({
    connectionString: url({ database: migrated }),
    runtimeConnectionString: url({ user: login, database: migrated }),
  })
  await admin(`CREATE DATABASE ${empty}`)
})

afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS ${migrated} WITH (FORCE)`)
  await admin(`DROP DATABASE IF EXISTS ${empty} WITH (FORCE)`)
  await admin(`DROP ROLE IF EXISTS ${login}`)
})

describe('weave doctor', () => {
  it('passes a migrated database, a plain runtime login and a reachable Redis', async () => {
    const { code, stdout } = await doctor({
      WEAVE_DATABASE_URL: url({ user: login, database: migrated }),
      WEAVE_MIGRATE_DATABASE_URL: url({ database: migrated }),
    })
    expect(stdout).not.toMatch(/FAIL/)
    expect(stdout).toMatch(/^ok {4}configuration$/m)
    expect(stdout).toMatch(/^ok {4}migrations$/m)
    expect(stdout).toMatch(/^ok {4}redis$/m)
    expect(code).toBe(0)
  })

  it('names a superuser runtime login, missing migrations and an unreachable Redis, and exits 1', async () => {
    const { code, stdout } = await doctor({
      WEAVE_DATABASE_URL: url({ database: empty }),
      WEAVE_MIGRATE_DATABASE_URL: url({ database: empty }),
      REDIS_URL: 'redis://127.0.0.1:1',
    })
    expect(code).toBe(1)
    expect(stdout).toMatch(/^FAIL {2}database login .*: postgres is a superuser$/m)
    expect(stdout).toMatch(/^FAIL {2}migrations: \d+ not applied \(0000_app-role, .*weave migrate/m)
    expect(stdout).toMatch(/^FAIL {2}redis: /m)
  })

  it('names the keys production requires, and still checks the rest', async () => {
    const { code, stdout } = await doctor({
      NODE_ENV: 'production',
      WEAVE_DATABASE_URL: url({ user: login, database: migrated }),
      WEAVE_MIGRATE_DATABASE_URL: url({ database: migrated }),
    })
    expect(code).toBe(1)
    expect(stdout).toMatch(/^FAIL {2}configuration: .*WEAVE_SECRETS_KEY.*WEAVE_AUDIT_SIGNING_KEY/m)
    expect(stdout).toMatch(/^ok {4}migrations$/m)
  })
})
