import { randomBytes } from 'node:crypto'
import { ConfigError } from '@weave/api'
import { migrateDatabase } from '@weave/db'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL } from '../../../test/support/service-urls.js'
import { checkDatabaseLogin } from '../src/commands/database-login.js'

const suffix = randomBytes(4).toString('hex')
const database = `weave_cli_login_${suffix}`
const login = `weave_test_cli_${suffix}`

function url(options: { user?: string; database?: string; port?: string } = {}): string {
  const result = new URL(TEST_DATABASE_URL)
  if (options.user) result.username = options.user
  if (options.database) result.pathname = `/${options.database}`
  if (options.port) result.port = options.port
  return result.toString()
}

function recorder() {
  const warnings: { fields: unknown; message: string }[] = []
  return {
    warnings,
    log: { warn: (fields: unknown, message: string) => void warnings.push({ fields, message }) },
  }
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

beforeAll(async () => {
  await migrateDatabase({
    connectionString: url({ database }),
    runtimeConnectionString: url({ user: login, database }),
  })
})

afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
  await admin(`DROP ROLE IF EXISTS "${login}"`)
})

describe('the runtime database login check', () => {
  it('refuses a superuser login in production, naming the problem and the fix', async () => {
    const { log, warnings } = recorder()
    const check = checkDatabaseLogin({
      connectionString: url({ user: 'postgres', database }),
      isProduction: true,
      log,
    })
    await expect(check).rejects.toBeInstanceOf(ConfigError)
    await expect(check).rejects.toThrow(/postgres is a superuser.*WEAVE_DATABASE_URL/)
    expect(warnings).toEqual([])
  })

  it('only warns about it outside production, so a single-URL development setup runs', async () => {
    const { log, warnings } = recorder()
    await checkDatabaseLogin({
      connectionString: url({ user: 'postgres', database }),
      isProduction: false,
      log,
    })
    expect(warnings).toEqual([
      {
        fields: { problems: ['postgres is a superuser'] },
        message: 'the runtime database login escapes row-level security',
      },
    ])
  })

  it('accepts the login `weave migrate` created, in production too', async () => {
    const { log, warnings } = recorder()
    await checkDatabaseLogin({
      connectionString: url({ user: login, database }),
      isProduction: true,
      log,
    })
    expect(warnings).toEqual([])
  })

  it('refuses to start in production when the database cannot be asked, and warns elsewhere', async () => {
    const unreachable = url({ user: login, database, port: '1' })
    const { log, warnings } = recorder()
    await expect(
      checkDatabaseLogin({ connectionString: unreachable, isProduction: true, log }),
    ).rejects.toThrow(/could not check the runtime database login/)
    await checkDatabaseLogin({ connectionString: unreachable, isProduction: false, log })
    expect(warnings.map((w) => w.message)).toEqual(['could not check the runtime database login'])
  })
})
