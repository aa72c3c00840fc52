import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto'
import pg from 'pg'
import { APP_ROLE } from './schema/roles.js'

/** The LOGIN role the API and workers connect as unless configured otherwise. */
export const DEFAULT_RUNTIME_LOGIN = 'weave_runtime'

/** The login that owns the tables unless configured otherwise: the local superuser. */
export const DEFAULT_OWNER_LOGIN = 'postgres'

// Server, port and database of the local quick start; the logins are added per use.
const LOCAL_DATABASE = 'postgres://127.0.0.1:5432/weave'

/** What is configured of the two database URLs (`undefined` when unset). */
export interface ConfiguredDatabaseUrls {
  /** WEAVE_DATABASE_URL: the runtime login. */
  runtime?: string | undefined
  /** WEAVE_MIGRATE_DATABASE_URL: the tables' owner, used only to migrate. */
  migrate?: string | undefined
  /** DATABASE_URL, the single URL of earlier versions: both, unless one is set on its own. */
  legacy?: string | undefined
}

/** The connection strings of the runtime login and of the migrating owner. */
export interface DatabaseUrls {
  runtime: string
  migrate: string
}

/**
 * Pairs the runtime and the migration URLs. A URL left unset is the other one's server and
 * database with the default login ({@link DEFAULT_RUNTIME_LOGIN} or {@link DEFAULT_OWNER_LOGIN},
 * no password), so both always name the same database; with nothing set both point at the local
 * `weave` database. A legacy `DATABASE_URL` stands for whichever of the two is unset.
 */
export function resolveDatabaseUrls(configured: ConfiguredDatabaseUrls): DatabaseUrls {
  if (configured.legacy !== undefined) {
    return {
      runtime: configured.runtime ?? configured.legacy,
      migrate: configured.migrate ?? configured.legacy,
    }
  }
  const base = configured.runtime ?? configured.migrate ?? LOCAL_DATABASE
  return {
    runtime: configured.runtime ?? withLogin(base, DEFAULT_RUNTIME_LOGIN),
    migrate: configured.migrate ?? withLogin(base, DEFAULT_OWNER_LOGIN),
  }
}

/** What {@link ensureRuntimeLogin} found and did. */
export interface RuntimeLoginSetup {
  /** The runtime login's name. */
  login: string
  /**
   * `created`: the role was missing and was created; `granted`: it existed and was made a member
   * of the app role; `unchanged`: it was a member already; `owner`: it is the migrating login
   * itself (a single-URL setup), which is left alone.
   */
  outcome: 'created' | 'granted' | 'unchanged' | 'owner'
}

// SQLSTATEs of CREATE ROLE racing another migrator.
const DUPLICATE_OBJECT = '42710'
const UNIQUE_VIOLATION = '23505'
const INSUFFICIENT_PRIVILEGE = '42501'

/**
 * Makes the runtime URL's login usable: creates it when missing (LOGIN, NOSUPERUSER, NOBYPASSRLS,
 * NOCREATEDB, NOCREATEROLE, member of `weave_app`, with the URL's password stored as a SCRAM
 * verifier, so no plain password reaches a statement log) and grants it `weave_app` when it lacks
 * it. An existing role's attributes and password are never changed. Login roles are cluster-wide
 * and carry credentials, so this is a setup step run beside the migrations, not a migration. Run
 * it after the migrations, which create `weave_app` (database-role.int.test.ts).
 * @throws {Error} when the runtime URL names no login, or the owner may not create or grant roles
 *   (the message says what to run instead); the driver's error when a server is unreachable
 */
export async function ensureRuntimeLogin(options: {
  ownerConnectionString: string
  runtimeConnectionString: string
}): Promise<RuntimeLoginSetup> {
  const runtime = new URL(options.runtimeConnectionString)
  const login = decodeURIComponent(runtime.username)
  if (login === '') {
    throw new Error('the runtime database URL names no login (postgres://<login>@host/database)')
  }
  const client = new pg.Client({ connectionString: options.ownerConnectionString })
  await client.connect()
  try {
    const owner = await client.query<{ login: string }>('select session_user as login')
    if (owner.rows[0]?.login === login) return { login, outcome: 'owner' }
    const found = await client.query<{ is_member: boolean }>(
      'select pg_has_role(oid, $2::name, $3::text) as is_member from pg_roles where rolname = $1',
      [login, APP_ROLE, 'MEMBER'],
    )
    const role = found.rows[0]
    if (role?.is_member) return { login, outcome: 'unchanged' }
    if (role === undefined) {
      const password = decodeURIComponent(runtime.password)
      const created = await createLogin(client, login, password)
      if (created) return { login, outcome: 'created' }
    }
    await withAdvice(client.query(`GRANT ${APP_ROLE} TO ${client.escapeIdentifier(login)}`), login)
    return { login, outcome: 'granted' }
  } finally {
    await client.end()
  }
}

/** What {@link inspectDatabaseLogin} found about the login of a connection string. */
export interface DatabaseLoginReport {
  /** The session user the connection string logs in as. */
  login: string
  /**
   * Why this login must not serve traffic, one sentence each; empty when it is a plain login
   * that owns nothing, bypasses no row-level security and may act as `weave_app`.
   */
  problems: string[]
}

interface LoginRow {
  login: string
  is_superuser: boolean
  bypasses_rls: boolean
  privileged_roles: string[]
  owns_database: boolean
  owned_objects: number
  is_app_member: boolean
}

/**
 * Connects as the runtime login and reports what would let it escape row-level security: being
 * a superuser or BYPASSRLS (itself, or through a role it may SET ROLE to), or owning the database
 * or any table, function or schema in it (an owner is not bound by the policies it owns). Also
 * reports a login that may not act as `weave_app`, without which no query runs.
 * @throws the driver's error when the server is unreachable or refuses the login
 */
export async function inspectDatabaseLogin(connectionString: string): Promise<DatabaseLoginReport> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    const { rows } = await client.query<LoginRow>(INSPECT_LOGIN_SQL, [APP_ROLE])
    const row = rows[0]!
    return { login: row.login, problems: problemsOf(row) }
  } finally {
    await client.end()
  }
}

// pg_has_role(..., 'MEMBER') holds for every role the login may SET ROLE to, itself included.
const INSPECT_LOGIN_SQL = `
  with login as (select oid, rolname, rolsuper, rolbypassrls from pg_roles where rolname = session_user)
  select
    login.rolname as login,
    login.rolsuper as is_superuser,
    login.rolbypassrls as bypasses_rls,
    array(
      select r.rolname::text from pg_roles r
      where r.oid <> login.oid and (r.rolsuper or r.rolbypassrls)
        and pg_has_role(login.oid, r.oid, 'MEMBER')
      order by 1
    ) as privileged_roles,
    exists (
      select 1 from pg_database d
      where d.datname = current_database() and pg_has_role(login.oid, d.datdba, 'MEMBER')
    ) as owns_database,
    (
      (select count(*) from pg_class c where pg_has_role(login.oid, c.relowner, 'MEMBER'))
      + (select count(*) from pg_proc p where pg_has_role(login.oid, p.proowner, 'MEMBER'))
      + (select count(*) from pg_namespace n where pg_has_role(login.oid, n.nspowner, 'MEMBER'))
    )::int as owned_objects,
    exists (
      select 1 from pg_roles a where a.rolname = $1 and pg_has_role(login.oid, a.oid, 'MEMBER')
    ) as is_app_member
  from login`

function problemsOf(row: LoginRow): string[] {
  // A superuser is a member of every role and owns whatever it likes: nothing else to add.
  if (row.is_superuser) return [`${row.login} is a superuser`]
  const problems: string[] = []
  if (row.bypasses_rls) problems.push(`${row.login} has BYPASSRLS`)
  if (row.privileged_roles.length > 0) {
    problems.push(
      `${row.login} may SET ROLE to ${row.privileged_roles.join(', ')} (superuser or BYPASSRLS)`,
    )
  }
  if (row.owns_database) problems.push(`${row.login} owns the database`)
  if (row.owned_objects > 0) {
    problems.push(
      `${row.login} owns ${row.owned_objects} objects (tables, sequences, functions, schemas)`,
    )
  }
  if (!row.is_app_member) {
    problems.push(`${row.login} may not act as ${APP_ROLE} (GRANT ${APP_ROLE} TO ${row.login})`)
  }
  return problems
}

// False when another migrator created the role first.
async function createLogin(client: pg.Client, login: string, password: string): Promise<boolean> {
  const secret = password === '' ? '' : ` PASSWORD ${client.escapeLiteral(scramVerifier(password))}`
  const statement =
    `CREATE ROLE ${client.escapeIdentifier(login)} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB ` +
    `NOCREATEROLE NOREPLICATION${secret} IN ROLE ${APP_ROLE}`
  try {
    await withAdvice(client.query(statement), login)
    return true
  } catch (err) {
    const code = (err as { code?: string }).code
    if (code === DUPLICATE_OBJECT || code === UNIQUE_VIOLATION) return false
    throw err
  }
}

async function withAdvice<T>(query: Promise<T>, login: string): Promise<T> {
  try {
    return await query
  } catch (err) {
    if ((err as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw err
    throw new Error(
      `the migrating login may not create or grant roles; as an administrator run ` +
        `CREATE ROLE ${login} LOGIN PASSWORD '...' IN ROLE ${APP_ROLE} ` +
        `(or GRANT ${APP_ROLE} TO ${login} when it exists)`,
      { cause: err },
    )
  }
}

// The form Postgres stores passwords in (RFC 5802/7677): the server accepts a verifier in place
// of the password, so CREATE ROLE never carries it in clear. Like node-postgres, which will log
// in with it, the password is used as given (no SASLprep).
function scramVerifier(password: string, iterations = 4096): string {
  const salt = randomBytes(16)
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256')
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  const storedKey = createHash('sha256').update(clientKey).digest()
  const serverKey = createHmac('sha256', salted).update('Server Key').digest()
  return (
    `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}` +
    `$${storedKey.toString('base64')}:${serverKey.toString('base64')}`
  )
}

function withLogin(connectionString: string, login: string): string {
  const url = new URL(connectionString)
  url.username = login
  url.password = ''
  return url.toString()
}
