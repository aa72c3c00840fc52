import {
  GraphRegistry,
  createApprovalLifecycle,
  type Database,
  type JobSink,
  type ScheduleTimers,
} from '@weave/db'
import { createEgressPolicy, type LookupAll } from '@weave/spec'
import type { KeyObject } from 'node:crypto'
import type { Logger } from 'pino'
import { createApprovalHookService, type ApprovalHookService } from './approval-hook-service.js'
import { createApprovalService, type ApprovalService } from './approval-service.js'
import { createAuditAnchorService, type AuditAnchorService } from './audit-anchor-service.js'
import { createAuditService, type AuditService } from './audit-service.js'
import { createInboxService, type InboxService } from '../inbox/inbox-service.js'
import { createGraphService, type GraphService } from './graph-service.js'
import {
  createRunEventStreams,
  type RunEventStreamDeps,
  type RunEventStreams,
} from './run-event-stream.js'
import { createRetentionService, type RetentionService } from './retention-service.js'
import { createRunService, type RunService } from './run-service.js'
import { createScheduleService, type ScheduleService } from './schedule-service.js'
import { createThreadService, type ThreadService } from './thread-service.js'
import { createWebhookService, type WebhookService } from './webhook-service.js'

/** The services every resource route plugin receives as its options. */
export interface ApiServices {
  graphs: GraphService
  runs: RunService
  threads: ThreadService
  schedules: ScheduleService
  runEvents: RunEventStreams
  approvals: ApprovalService
  approvalHooks: ApprovalHookService
  audit: AuditService
  auditAnchors: AuditAnchorService
  /** The tenant's retention policy. */
  retention: RetentionService
  webhooks: WebhookService
  /** The approval inbox's reads (pending approvals with their runs, one approval's page). */
  inbox: InboxService
}

/** What {@link createApiServices} builds the services over. */
export interface ApiServiceDeps {
  database: Database
  /** Where jobs are added (`createJobQueues` of @weave/queue). */
  jobs: JobSink
  /**
   * Where schedules' job schedulers are set; `jobs` when it offers them (the queues of
   * `createJobQueues` do). Without either, the worker's reconciler sets them.
   */
  scheduleTimers?: ScheduleTimers
  /** Compiled graphs for run history; one over `database` when absent. */
  registry?: GraphRegistry
  /** Reports handled degradations (a job left to the reconciler). */
  log?: Pick<Logger, 'warn'>
  /** The largest graph registration body, in bytes (default DEFAULT_SPEC_BODY_LIMIT_BYTES). */
  specBodyLimitBytes?: number
  /** The API's public base URL (`config.publicUrl`), the base of approval page links. */
  publicUrl?: string
  /** Signs audit anchors (`config.auditSigningKey`); no anchors without it. */
  auditSigningKey?: KeyObject | undefined
  /** Encrypts webhook signing secrets (`config.secretsKey`); no webhooks without it. */
  secretsKey?: Buffer | undefined
  /**
   * `config.httpAllow`: webhook URLs and the MCP servers agents name follow the `http` steps'
   * egress rules (public hosts only).
   */
  httpAllow?: readonly string[]
  /** Resolves those hosts for that check (default: the system resolver). */
  lookup?: LookupAll
  /** Live wake-ups and limits of run event streams (SSE); streams poll without wake-ups. */
  runEvents?: Omit<RunEventStreamDeps, 'database'>
}

/** Builds every resource service, for `buildApp({ services, routes: resourceRoutes })`. */
export function createApiServices(deps: ApiServiceDeps): ApiServices {
  const log = deps.log ? { log: deps.log } : {}
  const egress = createEgressPolicy(deps.httpAllow ?? [], deps.lookup)
  const serviceDeps = {
    database: deps.database,
    jobs: deps.jobs,
    registry: deps.registry ?? new GraphRegistry(deps.database),
    approvals: createApprovalLifecycle({ database: deps.database, jobs: deps.jobs, ...log }),
    ...log,
  }
  const runs = createRunService(serviceDeps)
  return {
    graphs: createGraphService(serviceDeps, {
      mcp: { egress },
      ...(deps.specBodyLimitBytes === undefined
        ? {}
        : { specBodyLimitBytes: deps.specBodyLimitBytes }),
    }),
    runs,
    threads: createThreadService(serviceDeps),
    schedules: createScheduleService(serviceDeps, deps.scheduleTimers ?? timersOf(deps.jobs)),
    runEvents: createRunEventStreams({ ...deps.runEvents, database: deps.database }),
    approvals: createApprovalService(serviceDeps, {
      publicUrl: deps.publicUrl ?? 'http://127.0.0.1:3000',
    }),
    approvalHooks: createApprovalHookService(serviceDeps),
    audit: createAuditService(serviceDeps, { signingKey: deps.auditSigningKey }),
    auditAnchors: createAuditAnchorService({
      database: deps.database,
      signingKey: deps.auditSigningKey,
    }),
    retention: createRetentionService({ database: deps.database }),
    webhooks: createWebhookService({
      database: deps.database,
      secretsKey: deps.secretsKey,
      egress,
    }),
    inbox: createInboxService(serviceDeps, runs),
  }
}

function timersOf(jobs: JobSink): ScheduleTimers | undefined {
  const candidate = jobs as Partial<ScheduleTimers>
  return typeof candidate.setScheduleTimer === 'function' &&
    typeof candidate.removeScheduleTimer === 'function' &&
    typeof candidate.hasScheduleTimer === 'function'
    ? (jobs as JobSink & ScheduleTimers)
    : undefined
}
