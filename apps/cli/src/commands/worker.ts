import { createLogger } from '@weave/api'
import { loadWorkerConfig, runWorker, stopTimeoutOf } from '@weave/worker'
import { requireProductionKeys } from '../production-keys.js'
import { rejectArguments } from '../arguments.js'
import { EXIT, type Command } from '../cli-io.js'
import { requireDependencies } from '../dependency-check.js'
import { withDevSecret } from '../dev-secret.js'
import { watchDependencies } from '../dependency-watch.js'
import { waitForShutdownSignal } from '../shutdown.js'
import { stopWithin } from '../stop-deadline.js'
import { spanSinkOf, startTracing } from '../tracing.js'
import { checkDatabaseLogin } from './database-login.js'

const WORKER_USAGE = `Usage: weave worker

Executes runs, resumes and timers from the queues until SIGINT or SIGTERM, then stops taking
jobs, lets each current run reach its next step boundary, and exits. A stop that outlasts
WEAVE_STOP_TIMEOUT_MS (plus WEAVE_SHUTDOWN_GRACE_MS with runs in flight) exits with status 3.
`

/** `weave worker`: runs a worker that executes runs, resumes and timers. */
export const workerCommand: Command = async (args, io) => {
  if (rejectArguments(args)) {
    io.stdout(WORKER_USAGE)
    return EXIT.ok
  }
  // The development JWT secret, when used, is what the webhook secrets key derives from.
  const config = loadWorkerConfig(withDevSecret(io.env).env)
  requireProductionKeys({
    isProduction: config.isProduction,
    secretsKey: config.secretsKey !== undefined,
    auditSigningKey: config.auditAnchors !== undefined,
  })
  // Before anything connects; the worker runs as the runtime login and takes jobs from Redis.
  await requireDependencies({
    postgres: { url: config.databaseUrl, role: 'runtime' },
    redis: config.redisUrl,
  })
  const log = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    isProduction: config.isProduction,
  })
  const tracing = startTracing(['weave-worker'], spanSinkOf(config))
  await checkDatabaseLogin({
    connectionString: config.databaseUrl,
    isProduction: config.isProduction,
    log,
  })
  const watch = watchDependencies(config, log)
  const worker = await runWorker(config, log.child({ component: 'worker' }), {
    health: watch.health,
    ...(tracing ? { tracer: tracing.tracerOf('weave-worker') } : {}),
  }).catch(async (err: unknown) => {
    await watch.close()
    await tracing?.shutdown()
    throw err
  })
  const signal = await waitForShutdownSignal()
  log.info({ signal }, 'shutting down')
  await stopWithin({
    timeoutMs: stopTimeoutOf(config, worker),
    log,
    stop: async () => {
      await worker.close()
      await watch.close()
      await tracing?.shutdown()
    },
  })
  return EXIT.ok
}
