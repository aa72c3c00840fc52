import { GraphRegistry, type Database } from '@weave/db'
import type { JobQueues } from '@weave/queue'
import type { Logger } from 'pino'
import { createApprovalService, type ApprovalService } from './approval-service.js'
import { createAuditService, type AuditService } from './audit-service.js'
import { createGraphService, type GraphService } from './graph-service.js'
import { createRunService, type RunService } from './run-service.js'

/** The services every resource route plugin receives as its options. */
export interface ApiServices {
  graphs: GraphService
  runs: RunService
  approvals: ApprovalService
  audit: AuditService
}

/** What {@link createApiServices} builds the services over. */
export interface ApiServiceDeps {
  database: Database
  queues: Pick<JobQueues, 'enqueueRun' | 'enqueueResume'>
  /** Compiled graphs for run history; one over `database` when absent. */
  registry?: GraphRegistry
  /** Reports handled degradations (a run left to the reconciler). */
  log?: Pick<Logger, 'warn'>
}

/** Builds every resource service, for `buildApp({ services, routes: resourceRoutes })`. */
export function createApiServices(deps: ApiServiceDeps): ApiServices {
  const serviceDeps = {
    database: deps.database,
    queues: deps.queues,
    registry: deps.registry ?? new GraphRegistry(deps.database),
    ...(deps.log ? { log: deps.log } : {}),
  }
  return {
    graphs: createGraphService(serviceDeps),
    runs: createRunService(serviceDeps),
    approvals: createApprovalService(serviceDeps),
    audit: createAuditService(serviceDeps),
  }
}
