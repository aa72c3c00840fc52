import { ConfigError } from '@weave/api'
import { inspectDatabaseLogin } from '@weave/db'

/** Options of {@link checkDatabaseLogin}. */
export interface CheckDatabaseLoginOptions {
  /** The runtime URL (WEAVE_DATABASE_URL). */
  connectionString: string
  /** NODE_ENV=production: problems refuse the start instead of being logged. */
  isProduction: boolean
  /** Where problems go outside production (a pino logger). */
  log: { warn(fields: Record<string, unknown>, message: string): void }
}

/**
 * Checks, before serving, that the runtime login is bound by row-level security: no superuser,
 * no BYPASSRLS, owner of nothing, and able to act as `weave_app`. In production a problem, or a
 * database that cannot be asked, refuses the start; elsewhere it is a warning, so the local quick
 * start and a single-URL development setup still run (database-login.int.test.ts).
 * @throws {ConfigError} in production, naming every problem
 */
export async function checkDatabaseLogin(options: CheckDatabaseLoginOptions): Promise<void> {
  let problems: string[]
  try {
    problems = (await inspectDatabaseLogin(options.connectionString)).problems
  } catch (err) {
    if (options.isProduction) {
      const reason = err instanceof Error ? err.message : String(err)
      throw new Error(
        `could not check the runtime database login (WEAVE_DATABASE_URL): ${reason}`,
        {
          cause: err,
        },
      )
    }
    options.log.warn({ err }, 'could not check the runtime database login')
    return
  }
  if (problems.length === 0) return
  const advice =
    'set WEAVE_DATABASE_URL to a LOGIN role that owns nothing and is a member of weave_app, and ' +
    'WEAVE_MIGRATE_DATABASE_URL to the owner (`weave migrate` creates the login when missing)'
  if (options.isProduction) {
    throw new ConfigError(
      `the runtime database login escapes row-level security: ${problems.join('; ')}; ${advice}`,
    )
  }
  options.log.warn({ problems }, 'the runtime database login escapes row-level security')
}
