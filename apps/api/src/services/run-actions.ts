import type { State } from '@weave/kernel'
import {
  TERMINAL_RUN_STATUSES,
  appendRunEvent,
  createRun,
  readyConcurrencyRuns,
  readyThreadRuns,
  requestRunCancel,
  withTenant,
} from '@weave/db'
import { GraphSpec } from '@weave/spec'
import type { Principal } from '../auth/principal.js'
import { ConflictError, NotFoundError } from '../http/app-errors.js'
import type { ForkRunBody, ResumeRunBody, RunView } from '../schemas/runs.js'
import { refuseClientState } from './client-input.js'
import { enqueueOrDefer, type AuditContext, type ServiceDeps } from './deps.js'
import { forkPoint } from './fork-point.js'
import { recordResume } from './run-resume.js'
import { runnableVersion } from './runnable-graph.js'
import { requireRun } from './run-views.js'
import { auditRequest } from './audit-request.js'

/** What a client can do to an existing run. */
export interface RunActions {
  /**
   * Starts a new run continuing from history entry `seq` of a run; the source is untouched. When
   * the input changes the material of an approval used up to `seq`, the fork starts where that
   * approval was asked instead (its `forkedSeq` says where), so a person is asked again.
   * @throws {NotFoundError} unknown run or checkpoint; {ConflictError} archived graph
   * @throws {BadRequestError} input with a reserved (`__`) or approval record key
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
   * Resumes a run waiting for outside input, or retries a failed run, once: the request is
   * recorded on the run with a compare-and-set and a job points a worker at it (a job the queue
   * refused is left to the reconciler).
   * @throws the errors of {@link recordResume}
   */
  resume(
    tenant: string,
    principal: Principal,
    id: string,
    body: ResumeRunBody,
    context: AuditContext,
  ): Promise<RunView>
}

/** Builds the {@link RunActions}; `get` renders the run they answer with. */
export function createRunActions(
  deps: ServiceDeps,
  get: (tenant: string, id: string) => Promise<RunView>,
): RunActions {
  const { database } = deps
  return {
    async fork(tenant, principal, id, body, context) {
      const { source, version } = await withTenant(database, tenant, async (tx) => {
        const source = await requireRun(tx, id)
        return { source, version: await runnableVersion(tx, source.graphName, source.graphVersion) }
      })
      const input = (body.input ?? {}) as State
      refuseClientState(input, version.spec)
      const spec = GraphSpec.parse(version.spec)
      const point = await forkPoint(database, tenant, source, spec, body.seq, input)
      const forked = await withTenant(database, tenant, async (tx) => {
        const { run } = await createRun(tx, {
          graphName: source.graphName,
          graphVersion: source.graphVersion,
          input,
          createdBy: principal.subject,
          forkedFrom: source.id,
          forkedSeq: point.seq,
        })
        const details = {
          graph: source.graphName,
          version: source.graphVersion,
          forkedFrom: source.id,
          forkedSeq: point.seq,
        }
        await appendRunEvent(tx, run.id, 'run.queued', details)
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'run.forked',
            target: { kind: 'run', id: run.id },
            details: {
              ...details,
              requestedSeq: body.seq,
              askAgain: point.askAgain.map(({ approvalId, step }) => ({ approvalId, step })),
            },
          },
        )
        return run
      })
      // The answer shows the run as it was committed, queued: read after the job is handed over,
      // it could show a worker's progress instead.
      const view = await get(tenant, forked.id)
      await enqueueOrDefer(deps, 'run', { runId: forked.id, tenant }, context)
      return view
    },

    async cancel(tenant, principal, id, context) {
      const released = await withTenant(database, tenant, async (tx) => {
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
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'run.cancelled',
            target: { kind: 'run', id: run.id },
            details: { cancelledNow, cancelledApprovals },
          },
        )
        // Cancelling a run at once released the next run of its thread or of its concurrency
        // key (if any), in this transaction (weave_admit_concurrency_runs).
        if (!cancelledNow) return []
        if (run.threadId) return readyThreadRuns(tx, run.threadId)
        return run.concurrencyKey ? readyConcurrencyRuns(tx, run.concurrencyKey) : []
      })
      for (const next of released) {
        await enqueueOrDefer(deps, 'run', { runId: next.id, tenant }, context)
      }
      return get(tenant, id)
    },

    async resume(tenant, principal, id, body, context) {
      const input = (body.input ?? {}) as State
      const job = await recordResume(deps, tenant, principal, id, input, context)
      // Read before the handover, as a fork's answer: the run as the resume left it.
      const view = await get(tenant, id)
      await enqueueOrDefer(deps, 'resume', job, context)
      return view
    },
  }
}
