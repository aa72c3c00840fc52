import { migrateDatabase } from '@weave/db'
import { loadWorkerConfig } from '@weave/worker'
import { EXIT, type Command } from '../cli-io.js'
import { rejectArguments } from '../arguments.js'
import { asPostgresUnavailable, requireDependencies } from '../dependency-check.js'

const MIGRATE_USAGE = `Usage: weave migrate

Creates the database named by WEAVE_MIGRATE_DATABASE_URL when it is missing and applies every
migration as that URL's login (the tables' owner), then makes sure the login of
WEAVE_DATABASE_URL exists and may act as weave_app (creating it when missing). Safe to run any
number of times and from several processes at once.
`

const LOGIN_OUTCOMES = {
  created: 'created',
  granted: 'granted weave_app',
  unchanged: 'ready',
  owner: 'the owner itself (set WEAVE_DATABASE_URL to a login that owns nothing)',
} as const

/** `weave migrate`: creates the database when missing and applies the migrations. */
export const migrateCommand: Command = async (args, io) => {
  if (rejectArguments(args)) {
    io.stdout(MIGRATE_USAGE)
    return EXIT.ok
  }
  const config = loadWorkerConfig(io.env)
  // Migrating needs Postgres only, as the tables' owner.
  await requireDependencies({ postgres: { url: config.migrateDatabaseUrl, role: 'migrate' } })
  const result = await migrateDatabase({
    connectionString: config.migrateDatabaseUrl,
    runtimeConnectionString: config.databaseUrl,
  }).catch((err: unknown) => {
    throw asPostgresUnavailable(err, config.migrateDatabaseUrl, 'migrate')
  })
  const login = result.runtimeLogin
  io.stdout(
    `${result.createdDatabase ? 'created the database; ' : ''}` +
      `${result.applied.length === 0 ? 'schema up to date' : `applied ${result.applied.join(', ')}`}` +
      `${login ? `; runtime login ${login.login}: ${LOGIN_OUTCOMES[login.outcome]}` : ''}\n`,
  )
  return EXIT.ok
}
