import { buildApp, createDependencyChecks, type App, type Config } from '@weave/api'
import type { Logger } from 'pino'

/** The API with its dependencies, ready to listen; `close` releases everything it opened. */
export interface ComposedApi {
  app: App
  close(): Promise<void>
}

/** Builds the API from its configuration: database, queues, services and routes. */
export function composeApi(config: Config, log: Logger): ComposedApi {
  const dependencies = createDependencyChecks(config)
  const app = buildApp({ config, log, checks: dependencies.checks })
  return {
    app,
    async close() {
      await app.close()
      await dependencies.close()
    },
  }
}
