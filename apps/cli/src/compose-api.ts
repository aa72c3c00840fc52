import {
  buildApp,
  createApiServices,
  createDependencyChecks,
  resourceRoutes,
  type App,
  type Config,
} from '@weave/api'
import { createDb } from '@weave/db'
import { createJobQueues, redisConnection } from '@weave/queue'
import type { Logger } from 'pino'

/** The API with its dependencies, ready to listen; `close` releases everything it opened. */
export interface ComposedApi {
  app: App
  close(): Promise<void>
}

/** Builds the API from its configuration: database, queues, services and routes. */
export function composeApi(config: Config, log: Logger): ComposedApi {
  const database = createDb({
    connectionString: config.databaseUrl,
    onError: (err) => log.warn({ err }, 'idle database connection failed'),
  })
  const queues = createJobQueues({
    connection: redisConnection(config.redisUrl),
    prefix: config.queuePrefix,
  })
  const services = createApiServices({ database, queues, log })
  const dependencies = createDependencyChecks(config)
  const app = buildApp({
    config,
    log,
    checks: dependencies.checks,
    services,
    routes: resourceRoutes,
  })
  return {
    app,
    async close() {
      await app.close()
      await dependencies.close()
      await queues.close()
      await database.close()
    },
  }
}
