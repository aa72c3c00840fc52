import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createDb,
  ensureRuntimeLogin,
  inspectDatabaseLogin,
  migrateDatabase,
  withTenant,
} from '@weave/db'
import { sql } from 'drizzle-orm'
import { dropDatabase, randomDatabaseUrl } from './test-database.js'

const { url: ownerUrl, name } = randomDatabaseUrl('weave_db_roles')
// Roles are cluster-wide: every one this file creates has its own name and is dropped after.
const suffix = randomBytes(4).toString('hex')
const roles: string[] = []
let owner: pg.Client

function loginName(purpose: string): string {
  const role = `weave_test_${purpose}_${suffix}`
  roles.push(role)
  return role
}

function urlAs(login: string, password = ''): string {
  const url = new URL(ownerUrl)
  url.username = login
  url.password = password
  return url.toString()
}

beforeAll(async () => {
  await migrateDatabase({ connectionString: ownerUrl })
  owner = new pg.Client({ connectionString: ownerUrl })
  await owner.connect()
})

afterAll(async () => {
  await owner?.end()
  await dropDatabase(name)
  const server = new URL(ownerUrl)
  server.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: server.toString() })
  await admin.connect()
  try {
    for (const role of roles) await admin.query(`DROP ROLE IF EXISTS "${role}"`)
  } finally {
    await admin.end()
  }
})

describe('the runtime login', () => {
  it('is created by the migration step as a plain LOGIN role that may only act as weave_app', async () => {
    const login = loginName('created')
    const password = `pw-${randomBytes(8).toString('hex')}`
    const result = await migrateDatabase({
      connectionString: ownerUrl,
      runtimeConnectionString: urlAs(login, password),
    })
    expect(result.runtimeLogin).toEqual({ login, outcome: 'created' })

    const { rows } = await owner.query(
      `select rolcanlogin, rolsuper, rolbypassrls, rolcreatedb, rolcreaterole, rolreplication,
              rolpassword, pg_has_role(oid, 'weave_app', 'MEMBER') as is_app_member
         from pg_authid where rolname = $1`,
      [login],
    )
    const role = rows[0] as Record<string, unknown> & { rolpassword: string }
    expect(role).toMatchObject({
      rolcanlogin: true,
      rolsuper: false,
      rolbypassrls: false,
      rolcreatedb: false,
      rolcreaterole: false,
      rolreplication: false,
      is_app_member: true,
    })
    // Stored as a SCRAM verifier derived from the URL's password, never the password itself.
    expect(role.rolpassword).not.toContain(password)
    expect(isVerifierOf(role.rolpassword, password)).toBe(true)

    expect(await inspectDatabaseLogin(urlAs(login))).toEqual({ login, problems: [] })
  })

  it('runs the queries of a tenant and, even after RESET ROLE, sees no other tenant', async () => {
    const login = loginName('scoped')
    await ensureRuntimeLogin({
      ownerConnectionString: ownerUrl,
      runtimeConnectionString: urlAs(login),
    })
    await owner.query(`insert into tenants (id) values ('t-a'), ('t-b') on conflict do nothing`)

    const database = createDb({ connectionString: urlAs(login), max: 1 })
    try {
      const seen = await withTenant(database, 't-a', async ({ db }) => {
        const result = await db.execute(
          sql`select session_user, current_user, count(*)::int as n from tenants group by 1, 2`,
        )
        return result.rows[0]
      })
      expect(seen).toEqual({ session_user: login, current_user: 'weave_app', n: 1 })
    } finally {
      await database.close()
    }

    // A statement that drops the app role still runs as a login that owns nothing.
    const raw = new pg.Client({ connectionString: urlAs(login) })
    await raw.connect()
    try {
      await raw.query('reset role')
      const { rows } = await raw.query<{ n: number }>('select count(*)::int as n from tenants')
      expect(rows[0]?.n).toBe(0)
      await expect(raw.query('drop table runs')).rejects.toThrow(/must be owner/)
    } finally {
      await raw.end()
    }
  })

  it('is left as it is when it exists, and granted weave_app when it lacks it', async () => {
    const login = loginName('existing')
    await owner.query(`CREATE ROLE "${login}" LOGIN`)
    const setup = () =>
      ensureRuntimeLogin({ ownerConnectionString: ownerUrl, runtimeConnectionString: urlAs(login) })
    expect(await setup()).toEqual({ login, outcome: 'granted' })
    expect(await setup()).toEqual({ login, outcome: 'unchanged' })
    // Concurrent setups of a new login agree: one creates it, none fails.
    const racing = loginName('racing')
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        ensureRuntimeLogin({
          ownerConnectionString: ownerUrl,
          runtimeConnectionString: urlAs(racing),
        }),
      ),
    )
    expect(outcomes.filter((o) => o.outcome === 'created')).toHaveLength(1)
    expect(await inspectDatabaseLogin(urlAs(racing))).toEqual({ login: racing, problems: [] })
  })

  it('is the owner itself in a single-URL setup, and nothing is changed', async () => {
    const result = await ensureRuntimeLogin({
      ownerConnectionString: ownerUrl,
      runtimeConnectionString: ownerUrl,
    })
    expect(result.outcome).toBe('owner')
  })
})

describe('inspectDatabaseLogin', () => {
  it('reports a superuser', async () => {
    expect(await inspectDatabaseLogin(ownerUrl)).toEqual({
      login: 'postgres',
      problems: ['postgres is a superuser'],
    })
  })

  it('reports BYPASSRLS, a privileged role it may become, ownership, and no weave_app', async () => {
    const bypass = loginName('bypass')
    await owner.query(`CREATE ROLE "${bypass}" LOGIN BYPASSRLS IN ROLE weave_app`)
    expect((await inspectDatabaseLogin(urlAs(bypass))).problems).toEqual([
      `${bypass} has BYPASSRLS`,
    ])

    const climber = loginName('climber')
    await owner.query(`CREATE ROLE "${climber}" LOGIN IN ROLE weave_app, "${bypass}"`)
    expect((await inspectDatabaseLogin(urlAs(climber))).problems).toEqual([
      `${climber} may SET ROLE to ${bypass} (superuser or BYPASSRLS)`,
    ])

    const tableOwner = loginName('owner')
    await owner.query(`CREATE ROLE "${tableOwner}" LOGIN`)
    await owner.query(`CREATE TABLE stray_${suffix} (x int)`)
    await owner.query(`ALTER TABLE stray_${suffix} OWNER TO "${tableOwner}"`)
    try {
      expect((await inspectDatabaseLogin(urlAs(tableOwner))).problems).toEqual([
        `${tableOwner} owns 1 objects (tables, sequences, functions, schemas)`,
        `${tableOwner} may not act as weave_app (GRANT weave_app TO ${tableOwner})`,
      ])
    } finally {
      await owner.query(`DROP TABLE stray_${suffix}`)
    }
  })
})

// Recomputes the SCRAM-SHA-256 keys (RFC 5802) from the verifier's salt and iteration count.
function isVerifierOf(verifier: string, password: string): boolean {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier)
  if (!match) return false
  const [, iterations, salt, storedKey, serverKey] = match
  const salted = pbkdf2Sync(
    password,
    Buffer.from(salt!, 'base64'),
    Number(iterations),
    32,
    'sha256',
  )
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  return (
    createHash('sha256').update(clientKey).digest('base64') === storedKey &&
    createHmac('sha256', salted).update('Server Key').digest('base64') === serverKey
  )
}
