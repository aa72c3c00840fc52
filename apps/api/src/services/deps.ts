import type { Database, GraphRegistry } from '@weave/db'
import type { JobQueues } from '@weave/queue'
import type { Logger } from 'pino'
import { ServiceUnavailableError } from '../http/app-errors.js'

/** What the resource services are built over. */
export interface ServiceDeps {
  database: Database
  /** Only the enqueue functions are used; tests and the CLI pass BullMQ queues. */
  queues: Pick<JobQueues, 'enqueueRun' | 'enqueueResume'>
  /** Compiled graphs (run history); shared with nothing else in the API. */
  registry: GraphRegistry
  /** Where a handled degradation (a run enqueue left to the reconciler) is reported. */
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
 * Adds a job that nothing else would add again if it were lost.
 * @throws {ServiceUnavailableError} when the queue is unreachable
 */
export async function enqueueOrUnavailable(add: () => Promise<void>): Promise<void> {
  try {
    await add()
  } catch (cause) {
    throw new ServiceUnavailableError('The job queue is unreachable; retry the request.', {
      cause,
      retryAfterSeconds: 5,
    })
  }
}

/**
 * Adds a run's job. A committed `queued` run whose job is lost is enqueued again by the worker's
 * reconciler, so a queue outage delays the run instead of failing the request. `context` puts
 * the request id on the log line.
 */
export async function enqueueRunOrDefer(
  deps: ServiceDeps,
  runId: string,
  tenant: string,
  context: AuditContext,
): Promise<void> {
  try {
    await deps.queues.enqueueRun({ runId, tenant })
  } catch (err) {
    deps.log?.warn(
      { err, runId, requestId: context.requestId },
      'run enqueue failed; the reconciler will enqueue it',
    )
  }
}
