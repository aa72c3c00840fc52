import type { Json } from '@weave/kernel'
import {
  TERMINAL_RUN_STATUSES,
  appendAudit,
  appendRunEvent,
  createRun,
  requestRunCancel,
  withTenant,
  type ResumeJob,
  type RunRow,
} from '@weave/db'
import { validateAgainstSchema } from '@weave/spec'
import type { Principal } from '../auth/principal.js'
import { BadRequestError, ConflictError, NotFoundError } from '../http/app-errors.js'
import type { ForkRunBody, ResumeRunBody, RunView } from '../schemas/runs.js'
import { readCheckpoint, tenantStore } from './checkpoints.js'
import {
  enqueueOrUnavailable,
  enqueueRunOrDefer,
  type AuditContext,
  type ServiceDeps,
} from './deps.js'
import { runnableVersion } from './runnable-graph.js'
import { requireRun } from './run-views.js'

/** What a client can do to an existing run. */
export interface RunActions {
  /**
   * Starts a new run continuing from history entry `seq` of a run; the source is untouched.
   * @throws {NotFoundError} unknown run or checkpoint; {ConflictError} archived graph
   */
  fork(
    tenant: string,
    principal: Principal,
    id: string,
    body: ForkRunBody,
    context: AuditContext,
  ): Promise<RunView>
  /**
   * Cancels a run: a queued or waiting run at once (its pending approvals too), a running one at
   * its next step boundary.
   * @throws {NotFoundError}; {ConflictError} `run-finished`
   */
  cancel(tenant: string, principal: Principal, id: string, context: AuditContext): Promise<RunView>
  /**
   * Resumes a run waiting for outside input, or retries a failed run.
   * @throws {NotFoundError}; {ConflictError} `run-not-resumable`; {BadRequestError} input that
   *   fails the input step's schema; {ServiceUnavailableError} when the queue is unreachable
   */
  resume(
    tenant: string,
    principal: Principal,
    id: string,
    body: ResumeRunBody,
    context: AuditContext,
  ): Promise<RunView>
}

/** A planned resume: its job key (dedupes racing requests) and payload. */
interface ResumePlan {
  key: string
  job: ResumeJob
}

/** Builds the {@link RunActions}; `get` renders the run they answer with. */
export function createRunActions(
  deps: ServiceDeps,
  get: (tenant: string, id: string) => Promise<RunView>,
): RunActions {
  const { database } = deps
  return {
    async fork(tenant, principal, id, body, context) {
      const source = await withTenant(database, tenant, (tx) => requireRun(tx, id))
      const store = tenantStore(database, tenant)
      if (!(await readCheckpoint(store, source.graphName, source.id, body.seq))) {
        throw new NotFoundError(`Run ${id} has no checkpoint ${body.seq}.`, {
          problem: 'checkpoint-not-found',
        })
      }
      const forked = await withTenant(database, tenant, async (tx) => {
        await runnableVersion(tx, source.graphName, source.graphVersion)
        const { run } = await createRun(tx, {
          graphName: source.graphName,
          graphVersion: source.graphVersion,
          input: (body.input ?? {}) as Json,
          createdBy: principal.subject,
          forkedFrom: source.id,
          forkedSeq: body.seq,
        })
        const details = {
          graph: source.graphName,
          version: source.graphVersion,
          forkedFrom: source.id,
          forkedSeq: body.seq,
        }
        await appendRunEvent(tx, run.id, 'run.queued', details)
        await appendAudit(tx, {
          actor: principal.subject,
          action: 'run.forked',
          target: { kind: 'run', id: run.id },
          requestId: context.requestId,
          ip: context.ip,
          details,
        })
        return run
      })
      await enqueueRunOrDefer(deps, forked.id, tenant, context)
      return get(tenant, forked.id)
    },

    async cancel(tenant, principal, id, context) {
      await withTenant(database, tenant, async (tx) => {
        const result = await requestRunCancel(tx, id)
        if (!result) throw new NotFoundError(`No run ${id}.`, { problem: 'run-not-found' })
        const { run, cancelledNow } = result
        if (!cancelledNow && TERMINAL_RUN_STATUSES.includes(run.status)) {
          throw new ConflictError(`The run already finished (${run.status}).`, {
            problem: 'run-finished',
          })
        }
        const cancelledApprovals = result.cancelledApprovals.map((approval) => approval.id)
        if (cancelledNow) {
          await appendRunEvent(tx, run.id, 'run.cancelled', { by: principal.subject })
        }
        await appendAudit(tx, {
          actor: principal.subject,
          action: 'run.cancelled',
          target: { kind: 'run', id: run.id },
          requestId: context.requestId,
          ip: context.ip,
          details: { cancelledNow, cancelledApprovals },
        })
      })
      return get(tenant, id)
    },

    async resume(tenant, principal, id, body, context) {
      const plan = await withTenant(database, tenant, async (tx) => {
        const plan = resumePlan(await requireRun(tx, id), tenant, body)
        await appendAudit(tx, {
          actor: principal.subject,
          action: 'run.resumed',
          target: { kind: 'run', id },
          requestId: context.requestId,
          ip: context.ip,
          details: { reason: plan.job.reason },
        })
        return plan
      })
      await enqueueOrUnavailable(() => deps.queues.enqueueResume(plan.key, plan.job))
      return get(tenant, id)
    },
  }
}

/**
 * How a run can be resumed: a run waiting on an `input` step with input valid against the
 * step's schema, or a failed run (a retry). Approvals are decided, timers fire on their own.
 */
function resumePlan(run: RunRow, tenant: string, body: ResumeRunBody): ResumePlan {
  const input = body.input ?? {}
  const base = { runId: run.id, tenant, input: input as ResumeJob['input'] }
  if (run.status === 'failed') {
    // One retry per failure: a failed run's updatedAt changes only when it runs again.
    return {
      key: `retry-${run.id}-${run.updatedAt.getTime()}`,
      job: { ...base, reason: 'retry' },
    }
  }
  const waitingOn = (run.waitingOn ?? {}) as { kind?: unknown; atSeq?: unknown; schema?: unknown }
  if (run.status !== 'waiting' || waitingOn.kind !== 'input') {
    throw new ConflictError(notResumableReason(run, waitingOn.kind), {
      problem: 'run-not-resumable',
    })
  }
  const schema = waitingOn.schema
  if (schema !== undefined && schema !== null) {
    const problems = validateAgainstSchema(schema as Json, input)
    if (problems.length > 0) {
      throw new BadRequestError("The input does not match the waiting step's schema.", {
        errors: problems.map((p) => ({ path: `/body/input${p.path}`, message: p.message })),
      })
    }
  }
  const atSeq = typeof waitingOn.atSeq === 'number' ? waitingOn.atSeq : undefined
  return {
    key: `input-${run.id}-${atSeq ?? 'latest'}`,
    job: { ...base, reason: 'input', ...(atSeq === undefined ? {} : { atSeq }) },
  }
}

function notResumableReason(run: RunRow, kind: unknown): string {
  if (run.status === 'waiting' && kind === 'approval') {
    return 'The run waits on an approval; decide it with POST /v1/approvals/{id}/decision.'
  }
  if (run.status === 'waiting' && kind === 'wait') {
    return 'The run waits on a timer; it resumes by itself when the timer fires.'
  }
  return `The run is ${run.status}; only a run waiting for input or a failed run can be resumed.`
}
