import { createDb, type Database } from '@weave/db'
import { redisConnection } from '@weave/queue'
import { createHandlerRegistry, loadHandlerModules } from '@weave/spec'
import type { Logger } from 'pino'
import type { WorkerConfig } from './config.js'
import { startWorker, type RunningWorker } from './start-worker.js'

/** A worker started from its configuration, owning its database pool. */
export interface ConfiguredWorker extends RunningWorker {
  database: Database
}

/** Loads the handler modules and starts a worker as the configuration says. */
export async function runWorker(config: WorkerConfig, log: Logger): Promise<ConfiguredWorker> {
  const handlers = createHandlerRegistry()
  const loaded = await loadHandlerModules(handlers, config.handlerModules)
  if (loaded.length > 0) log.info({ handlers: loaded }, 'handlers loaded')
  const database = createDb({
    connectionString: config.databaseUrl,
    max: config.concurrency + 4,
    onError: (err) => log.warn({ err }, 'idle database connection failed'),
  })
  const worker = startWorker({
    database,
    connection: redisConnection(config.redisUrl),
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    log,
    handlers,
    http: { allow: config.httpAllow },
    ...(config.llm ? { llm: config.llm } : {}),
    lockDurationMs: config.lockDurationMs,
    stalledIntervalMs: config.stalledIntervalMs,
    reconcileIntervalMs: config.reconcileIntervalMs,
  })
  return {
    ...worker,
    database,
    async close() {
      await worker.close()
      await database.close()
    },
  }
}
