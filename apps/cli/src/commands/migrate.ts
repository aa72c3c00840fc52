import { migrateDatabase } from '@weave/db'
import { loadWorkerConfig } from '@weave/worker'
import { EXIT, type Command } from '../cli-io.js'
import { rejectArguments } from '../arguments.js'

const MIGRATE_USAGE = `Usage: weave migrate

Creates the database named by DATABASE_URL when it is missing and applies every migration.
Safe to run any number of times and from several processes at once.
`

/** `weave migrate`: creates the database when missing and applies the migrations. */
export const migrateCommand: Command = async (args, io) => {
  if (rejectArguments(args)) {
    io.stdout(MIGRATE_USAGE)
    return EXIT.ok
  }
  const config = loadWorkerConfig(io.env)
  const result = await migrateDatabase({ connectionString: config.databaseUrl })
  io.stdout(
    `${result.createdDatabase ? 'created the database; ' : ''}` +
      `${result.applied.length === 0 ? 'schema up to date' : `applied ${result.applied.join(', ')}`}\n`,
  )
  return EXIT.ok
}
