import { buildApp, type RoutePlugin } from './app.js'
import { loadConfig } from './config.js'
import { sortOpenApiDocument } from './http/openapi.js'
import { createLogger } from './logger.js'
import { resourceRoutes, type ApiServices } from './routes/index.js'

// Nothing in the document depends on configuration; this only satisfies the schema.
const DOCUMENT_ENV = { WEAVE_JWT_SECRET: 'openapi-document-generation-placeholder-key' }

/**
 * The OpenAPI document of every route, as the text committed at openapi/openapi.json: sorted,
 * two-space indented, newline-terminated. Builds the app without services and connects to nothing.
 */
export async function renderOpenApiDocument(
  routes: readonly RoutePlugin<ApiServices>[] = resourceRoutes,
): Promise<string> {
  const app = buildApp<ApiServices>({
    config: loadConfig(DOCUMENT_ENV),
    log: createLogger({ level: 'silent' }),
    routes,
    // Route plugins only capture their services at registration; no handler runs here.
    services: {} as ApiServices,
  })
  try {
    await app.ready()
    return `${JSON.stringify(sortOpenApiDocument(app.swagger()), null, 2)}\n`
  } finally {
    await app.close()
  }
}
