import { appendRunEvent, getRun, withTenant, type Database } from '@weave/db'
import type { StepHook } from '@weave/kernel'
import { SHUTDOWN, stepPath, type Inflight } from './inflight.js'
import type { WorkerMetrics } from './metrics.js'

/** Tells a run's step that the user cancelled it; the kernel stops at the next step boundary. */
export const CANCELLED_BY_USER = Symbol('cancelled by user')

/**
 * A hook could not reach Postgres. The run stops without a verdict and its job is retried, rather
 * than the run being failed for an outage.
 */
export class InfrastructureError extends Error {
  override name = 'InfrastructureError'
  readonly code = 'infrastructure'
}

/**
 * Another job holds the run's lease now (the reconciler gave it one after this job vanished from
 * Redis). This execution stops before writing the step, and leaves the run to that job.
 */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError'
  readonly code = 'lease-lost'
  constructor(readonly runId: string) {
    super(`run ${runId} is leased to another job`)
  }
}

/**
 * Hooks of one tenant's graphs. Before a step: note when it started. After it: time it, append
 * `step.completed` to the run's events and, in the same transaction, check that this job still
 * holds the run's lease (else nothing of the step is written) and notice a cancel requested
 * through the API so the run stops at the boundary.
 */
export function stepEventHooks(
  database: Database,
  inflight: Inflight,
  tenant: string,
  metrics?: WorkerMetrics,
): { before: StepHook[]; after: StepHook[] } {
  const before: StepHook = (_step, _state, ctx) => {
    inflight.of(ctx.runId)?.stepStarts.set(`${ctx.runId}#${ctx.seq}`, performance.now())
  }
  const after: StepHook = async (step, _state, ctx) => {
    const flight = inflight.of(ctx.runId)
    if (!flight) return
    const key = `${ctx.runId}#${ctx.seq}`
    const started = flight.stepStarts.get(key)
    flight.stepStarts.delete(key)
    if (started !== undefined) metrics?.observeStep((performance.now() - started) / 1000)
    const runId = ctx.runId.split('/')[0]!
    const cancelled = await withTenant(database, tenant, async (tx) => {
      // The event's insert locks the run row first, so the lease read below is current.
      await appendRunEvent(tx, runId, 'step.completed', {
        step: stepPath(ctx.runId, step),
        seq: ctx.seq,
      })
      const run = await getRun(tx, runId)
      if (run?.leaseJob !== flight.jobId) throw new LeaseLostError(runId)
      return run.cancelRequested
    }).catch((err: unknown) => {
      if (err instanceof LeaseLostError) throw err
      throw new InfrastructureError('could not record the step', { cause: err })
    })
    if (cancelled && flight.controller.signal.reason !== SHUTDOWN)
      flight.controller.abort(CANCELLED_BY_USER)
  }
  return { before: [before], after: [after] }
}
