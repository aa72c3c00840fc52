import type { RoutePlugin } from '../app.js'
import { inboxRoutes } from '../inbox/inbox-routes.js'
import type { ApiServices } from '../services/api-services.js'
import { approvalHookRoutes } from './approval-hooks.js'
import { approvalRoutes } from './approvals.js'
import { auditAnchorRoutes } from './audit-anchors.js'
import { auditRoutes } from './audit.js'
import { graphRoutes } from './graphs.js'
import { runEventRoutes } from './run-events.js'
import { retentionRoutes } from './retention.js'
import { runRoutes } from './runs.js'
import { scheduleRoutes } from './schedules.js'
import { threadRoutes } from './threads.js'
import { schemaRoutes } from './schemas.js'
import { webhookRoutes } from './webhooks.js'

export type { ApiServices } from '../services/api-services.js'

/**
 * Every resource route plugin, in registration order. The CLI and scripts/openapi.ts register
 * this list, so a route added here is served and documented.
 */
export const resourceRoutes: readonly RoutePlugin<ApiServices>[] = [
  graphRoutes,
  runRoutes,
  runEventRoutes,
  threadRoutes,
  scheduleRoutes,
  approvalRoutes,
  approvalHookRoutes,
  auditRoutes,
  auditAnchorRoutes,
  retentionRoutes,
  webhookRoutes,
  schemaRoutes,
  inboxRoutes,
]
