import { createLogger, createMetricsRegistry, loadConfig } from '@weave/api'
import { migrateDatabase } from '@weave/db'
import { loadWorkerConfig, runWorker } from '@weave/worker'
import { rejectArguments } from '../arguments.js'
import { EXIT, type Command } from '../cli-io.js'
import { composeApi } from '../compose-api.js'
import { withDevSecret } from '../dev-secret.js'
import { waitForShutdownSignal } from '../shutdown.js'

const START_USAGE = `Usage: weave start

Creates and migrates the database when needed, then runs the HTTP API and a worker in one
process until SIGINT or SIGTERM. For production, run \`weave api\` and \`weave worker\` apart.
`

/** `weave start`: migrates, then runs the API and a worker in one process. */
export const startCommand: Command = async (args, io) => {
  if (rejectArguments(args)) {
    io.stdout(START_USAGE)
    return EXIT.ok
  }
  const { env, usesDevSecret } = withDevSecret(io.env)
  const config = loadConfig(env)
  const workerConfig = loadWorkerConfig(env)
  const log = createLogger({ level: config.logLevel })
  if (usesDevSecret) {
    log.warn(
      'no JWT key configured: using the development secret in .weave/ (mint tokens with `npm run weave -- token`)',
    )
  }
  const migrated = await migrateDatabase({ connectionString: config.databaseUrl })
  log.info(
    { createdDatabase: migrated.createdDatabase, applied: migrated.applied },
    'database ready',
  )

  // One registry: the API's /metrics shows the worker's metrics too.
  const metrics = createMetricsRegistry()
  const worker = await runWorker(workerConfig, log.child({ component: 'worker' }), { metrics })
  const api = composeApi(config, log, { metrics })
  try {
    await api.app.listen({ port: config.port, host: config.host })
    const signal = await waitForShutdownSignal()
    log.info({ signal }, 'shutting down')
  } finally {
    await api.close()
    await worker.close()
  }
  return EXIT.ok
}
