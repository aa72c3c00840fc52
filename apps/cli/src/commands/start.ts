import { createLogger, createMetricsRegistry, loadConfig } from '@weave/api'
import { migrateDatabase } from '@weave/db'
import { loadWorkerConfig, runWorker, stopTimeoutOf } from '@weave/worker'
import { requireProductionKeys } from '../production-keys.js'
import { rejectArguments } from '../arguments.js'
import { EXIT, type Command } from '../cli-io.js'
import { composeApi } from '../compose-api.js'
import { asPostgresUnavailable, requireDependencies } from '../dependency-check.js'
import { withDevSecret } from '../dev-secret.js'
import { watchDependencies } from '../dependency-watch.js'
import { waitForShutdownSignal } from '../shutdown.js'
import { stopWithin } from '../stop-deadline.js'
import { spanSinkOf, startTracing } from '../tracing.js'
import { checkDatabaseLogin } from './database-login.js'

const START_USAGE = `Usage: weave start

Creates and migrates the database when needed (as WEAVE_MIGRATE_DATABASE_URL's login, creating
the runtime login of WEAVE_DATABASE_URL when missing), then runs the HTTP API and a worker in one
process, connected as the runtime login, until SIGINT or SIGTERM. For production, run
\`weave migrate\`, then \`weave api\` and \`weave worker\` apart. A stop that outlasts
WEAVE_STOP_TIMEOUT_MS (plus WEAVE_SHUTDOWN_GRACE_MS with runs in flight) exits with status 3.
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
  requireProductionKeys({
    isProduction: config.isProduction,
    secretsKey: config.secretsKey !== undefined,
    auditSigningKey: config.auditSigningKey !== undefined,
  })
  // Before anything connects: migrating comes first, as the owner, and the worker needs Redis.
  await requireDependencies({
    postgres: { url: config.migrateDatabaseUrl, role: 'migrate' },
    redis: config.redisUrl,
  })
  const log = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    isProduction: config.isProduction,
  })
  // The worker last: steps' outgoing calls are reported under it (see startTracing).
  const tracing = startTracing(['weave-api', 'weave-worker'], spanSinkOf(config))
  if (usesDevSecret) {
    log.warn(
      'no JWT key configured: using the development secret in .weave/ (mint tokens with `npm run weave -- token`)',
    )
  }
  const migrated = await migrateDatabase({
    connectionString: config.migrateDatabaseUrl,
    runtimeConnectionString: config.databaseUrl,
  }).catch((err: unknown) => {
    throw asPostgresUnavailable(err, config.migrateDatabaseUrl, 'migrate')
  })
  log.info(
    {
      createdDatabase: migrated.createdDatabase,
      applied: migrated.applied,
      runtimeLogin: migrated.runtimeLogin,
    },
    'database ready',
  )
  await checkDatabaseLogin({
    connectionString: config.databaseUrl,
    isProduction: config.isProduction,
    log,
  })

  // One registry: the API's /metrics shows the worker's metrics too. One watch: an outage is
  // told once, not once by the API and once by the worker.
  const metrics = createMetricsRegistry()
  const watch = watchDependencies(config, log)
  const worker = await runWorker(workerConfig, log.child({ component: 'worker' }), {
    metrics,
    health: watch.health,
    ...(tracing ? { tracer: tracing.tracerOf('weave-worker') } : {}),
  })
  const api = composeApi(config, log, watch, {
    metrics,
    ...(tracing ? { tracer: tracing.tracerOf('weave-api') } : {}),
  })
  const close = async () => {
    await api.close()
    await worker.close()
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
  await stopWithin({ timeoutMs: stopTimeoutOf(workerConfig, worker), log, stop: close })
  return EXIT.ok
}
