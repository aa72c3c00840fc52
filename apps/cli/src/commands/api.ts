import { parseArgs } from 'node:util'
import { buildApp, createDependencyChecks, createLogger, loadConfig } from '@weave/api'
import { EXIT, UsageError, type Command } from '../cli-io.js'
import { waitForShutdownSignal } from '../shutdown.js'

const API_USAGE = `Usage: weave api

Runs the HTTP API on HOST:PORT until SIGINT or SIGTERM.
`

/** `weave api`: serves the HTTP API until the process is told to stop. */
export const apiCommand: Command = async (args, io) => {
  if (parseHelp(args)) {
    io.stdout(API_USAGE)
    return EXIT.ok
  }
  const config = loadConfig(io.env)
  const log = createLogger({ level: config.logLevel })
  const dependencies = createDependencyChecks(config)
  const app = buildApp({ config, log, checks: dependencies.checks })
  try {
    await app.listen({ port: config.port, host: config.host })
    const signal = await waitForShutdownSignal()
    log.info({ signal }, 'shutting down')
  } finally {
    await app.close()
    await dependencies.close()
  }
  return EXIT.ok
}

function parseHelp(args: string[]): boolean {
  try {
    const { values } = parseArgs({
      args,
      options: { help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    })
    return values.help === true
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}
