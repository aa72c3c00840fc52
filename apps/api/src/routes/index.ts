import type { RoutePlugin } from '../app.js'

/** The services every resource route plugin receives as its options. */
export type ApiServices = Record<never, never>

/**
 * Every resource route plugin, in registration order. The CLI and scripts/openapi.ts register
 * this list, so a route added here is served and documented.
 */
export const resourceRoutes: readonly RoutePlugin<ApiServices>[] = []
