import { createLogger, loadConfig } from '@weave/api'
import { requireProductionKeys } from '../production-keys.js'
import { rejectArguments } from '../arguments.js'
import { EXIT, type Command } from '../cli-io.js'
import { composeApi } from '../compose-api.js'
import { requireDependencies } from '../dependency-check.js'
import { withDevSecret } from '../dev-secret.js'
import { watchDependencies } from '../dependency-watch.js'
import { waitForShutdownSignal } from '../shutdown.js'
import { stopWithin } from '../stop-deadline.js'
import { spanSinkOf, startTracing } from '../tracing.js'
import { checkDatabaseLogin } from './database-login.js'

const API_USAGE = `Usage: weave api

Runs the HTTP API on HOST:PORT until SIGINT or SIGTERM, connected as WEAVE_DATABASE_URL's login
(with NODE_ENV=production, a login that escapes row-level security refuses the start). A stop
that outlasts WEAVE_STOP_TIMEOUT_MS exits with status 3.
`

/** `weave api`: serves the HTTP API until the process is told to stop. */
export const apiCommand: Command = async (args, io) => {
  if (rejectArguments(args)) {
    io.stdout(API_USAGE)
    return EXIT.ok
  }
  const { env, usesDevSecret } = withDevSecret(io.env)
  const config = loadConfig(env)
  requireProductionKeys({
    isProduction: config.isProduction,
    secretsKey: config.secretsKey !== undefined,
    auditSigningKey: config.auditSigningKey !== undefined,
  })
  // Before anything connects; the API serves as the runtime login and queues jobs in Redis.
  await requireDependencies({
    postgres: { url: config.databaseUrl, role: 'runtime' },
    redis: config.redisUrl,
  })
  const log = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    isProduction: config.isProduction,
  })
  const tracing = startTracing(['weave-api'], spanSinkOf(config))
  if (usesDevSecret) log.warn('no JWT key configured: using the development secret in .weave/')
  await checkDatabaseLogin({
    connectionString: config.databaseUrl,
    isProduction: config.isProduction,
    log,
  })
  const watch = watchDependencies(config, log)
  const api = composeApi(config, log, watch, {
    ...(tracing ? { tracer: tracing.tracerOf('weave-api') } : {}),
  })
  const close = async () => {
    await api.close()
    await watch.close()
    await tracing?.shutdown()
  }
  try {
    await api.app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await close()
    throw err
  }
  const signal = await waitForShutdownSignal()
  log.info({ signal }, 'shutting down')
  await stopWithin({ timeoutMs: config.stopTimeoutMs, log, stop: close })
  return EXIT.ok
}
