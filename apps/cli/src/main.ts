import { pathToFileURL } from 'node:url'
import { ConfigError } from '@weave/api'
import { WorkerConfigError } from '@weave/worker'
import { EXIT, UsageError, type CliIo, type Command } from './cli-io.js'
import { apiCommand } from './commands/api.js'
import { approvalsCommand } from './commands/approvals.js'
import { auditCommand } from './commands/audit.js'
import { doctorCommand } from './commands/doctor.js'
import { graphsCommand } from './commands/graphs.js'
import { migrateCommand } from './commands/migrate.js'
import { runsCommand } from './commands/runs.js'
import { schedulesCommand } from './commands/schedules.js'
import { startCommand } from './commands/start.js'
import { threadsCommand } from './commands/threads.js'
import { tokenCommand } from './commands/token.js'
import { workerCommand } from './commands/worker.js'
import { DependencyUnavailableError } from './dependency-check.js'
import { USAGE } from './usage.js'

const COMMANDS: Record<string, Command> = {
  start: startCommand,
  api: apiCommand,
  worker: workerCommand,
  migrate: migrateCommand,
  token: tokenCommand,
  audit: auditCommand,
  doctor: doctorCommand,
  runs: runsCommand,
  threads: threadsCommand,
  schedules: schedulesCommand,
  approvals: approvalsCommand,
  graphs: graphsCommand,
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
}

/** Runs `weave` with `argv` (without node and the script); resolves to the exit status. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...args] = argv
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(USAGE)
    return EXIT.ok
  }
  const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!command) {
    io.stderr(
      `${name === undefined ? 'weave: no command given' : `weave: unknown command "${name}"`}\n\n${USAGE}`,
    )
    return EXIT.usage
  }
  try {
    return await command(args, io)
  } catch (error) {
    // A service that is down is fixed like a configuration: the message says where and what to set.
    if (
      error instanceof ConfigError ||
      error instanceof WorkerConfigError ||
      error instanceof DependencyUnavailableError
    ) {
      io.stderr(`weave ${name}: ${error.message}\n`)
      return EXIT.usage
    }
    if (error instanceof UsageError) {
      io.stderr(`weave ${name}: ${error.message}\nRun \`weave ${name} --help\` for usage.\n`)
      return EXIT.usage
    }
    io.stderr(
      `weave ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    return EXIT.failure
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A command that returned has closed what it opened. Exiting now rather than when the event
  // loop drains keeps a library's timers (BullMQ's, for connections ended during a Redis outage)
  // from holding a finished stop back; stdout and stderr are written synchronously, so no output
  // is lost.
  process.exit(await main(process.argv.slice(2)))
}
