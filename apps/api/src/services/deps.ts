import type { ApprovalLifecycle, Database, GraphRegistry, JobPayload, JobSink } from '@weave/db'
import type { Logger } from 'pino'

/** What the resource services are built over. */
export interface ServiceDeps {
  database: Database
  /** Where jobs are added: BullMQ queues in production and in the integration tests. */
  jobs: JobSink
  /** Compiled graphs (run history); shared with nothing else in the API. */
  registry: GraphRegistry
  /** The one approval lifecycle: decisions by bearer token and by approval link go through it. */
  approvals: ApprovalLifecycle
  /** Where a handled degradation (a job left to the reconciler) is reported. */
  log?: Pick<Logger, 'warn'>
}

/** Where a state-changing request came from; every audit event records it. */
export interface AuditContext {
  /** The request's `X-Request-Id`. */
  requestId: string
  /** The client's address. */
  ip: string
}

/**
 * Adds the job of a run whose request is already committed in Postgres (a queued run, a pending
 * resume). When the queue is away the worker's reconciler adds the job later from those rows, so
 * the failure delays the run instead of failing a request that has already taken effect (a retry
 * of it would be refused). `context` puts the request id on the log line.
 */
export async function enqueueOrDefer<K extends 'run' | 'resume'>(
  deps: Pick<ServiceDeps, 'jobs' | 'log'>,
  kind: K,
  payload: JobPayload<K>,
  context: AuditContext,
): Promise<void> {
  try {
    await deps.jobs.enqueue(kind, payload)
  } catch (err) {
    deps.log?.warn(
      { err, runId: payload.runId, job: kind, requestId: context.requestId },
      'job enqueue failed; the reconciler will enqueue it',
    )
  }
}
