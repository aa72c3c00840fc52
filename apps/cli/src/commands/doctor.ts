import { loadConfig } from '@weave/api'
import { inspectDatabaseLogin, pendingMigrations } from '@weave/db'
import { loadWorkerConfig } from '@weave/worker'
import { EXIT, type Command } from '../cli-io.js'
import { findUnreachableDependency, withoutPassword } from '../dependency-check.js'
import { withDevSecret } from '../dev-secret.js'
import { requireProductionKeys } from '../production-keys.js'
import { DOCTOR_USAGE } from '../usage.js'

/** One check's verdict: what was checked, and what is wrong with it (nothing: ok). */
interface Finding {
  check: string
  problems: string[]
}

/**
 * `weave doctor`: checks what `weave api` and `weave worker` need, as this environment
 * configures them, and prints one line per check with what is wrong: the configuration (the keys
 * production requires included), the runtime database login (no superuser, no BYPASSRLS, owns
 * nothing, may act as weave_app), the migrations, and Redis. Exits 1 when anything is wrong.
 */
export const doctorCommand: Command = async (args, io) => {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(DOCTOR_USAGE)
    return EXIT.ok
  }
  const findings: Finding[] = []
  let config: ReturnType<typeof loadConfig> | undefined
  try {
    const env = withDevSecret(io.env).env
    config = loadConfig(env)
    const workerConfig = loadWorkerConfig(env)
    requireProductionKeys({
      isProduction: config.isProduction,
      secretsKey: config.secretsKey !== undefined,
      auditSigningKey:
        config.auditSigningKey !== undefined && workerConfig.auditAnchors !== undefined,
    })
    findings.push({ check: 'configuration', problems: [] })
  } catch (err) {
    findings.push({ check: 'configuration', problems: [messageOf(err)] })
  }
  if (config) {
    const runtime = withoutPassword(config.databaseUrl)
    const [login, migrations, redis] = await Promise.all([
      inspectDatabaseLogin(config.databaseUrl).then(
        (report) => report.problems,
        (err: unknown) => [`cannot log in as ${runtime}: ${messageOf(err)}`],
      ),
      pendingMigrations(config.migrateDatabaseUrl).then(
        (pending) =>
          pending.length === 0
            ? []
            : [`${pending.length} not applied (${pending.join(', ')}): run \`weave migrate\``],
        (err: unknown) => [
          `cannot read them as ${withoutPassword(config.migrateDatabaseUrl)}: ${messageOf(err)}`,
        ],
      ),
      findUnreachableDependency({ redis: config.redisUrl }).then((problem) =>
        problem === null ? [] : [problem],
      ),
    ])
    findings.push(
      { check: `database login (${runtime})`, problems: login },
      { check: 'migrations', problems: migrations },
      { check: 'redis', problems: redis },
    )
  }
  for (const { check, problems } of findings) {
    if (problems.length === 0) io.stdout(`ok    ${check}\n`)
    for (const problem of problems) io.stdout(`FAIL  ${check}: ${problem}\n`)
  }
  return findings.some((f) => f.problems.length > 0) ? EXIT.failure : EXIT.ok
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replaceAll('\n', '; ')
}
