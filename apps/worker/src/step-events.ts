import { appendRunEvent, getRun, withTenant, type Database } from '@weave/db'
import type { StepHook } from '@weave/kernel'
import { SHUTDOWN, stepPath, type Inflight } from './inflight.js'

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
 * After-step hooks of one tenant's graphs: append `step.completed` to the run's events and, in the
 * same transaction, notice a cancel requested through the API so the run stops at the boundary.
 */
export function stepEventHooks(
  database: Database,
  inflight: Inflight,
  tenant: string,
): { after: StepHook[] } {
  const after: StepHook = async (step, _state, ctx) => {
    const flight = inflight.of(ctx.runId)
    if (!flight) return
    const runId = ctx.runId.split('/')[0]!
    // A step that suspended the run (approval, input, wait) reported it before returning.
    const yielded = flight.suspensions.some((x) => x.runId === ctx.runId && x.seq === ctx.seq)
    const cancelled = await withTenant(database, tenant, async (tx) => {
      await appendRunEvent(tx, runId, 'step.completed', {
        step: stepPath(ctx.runId, step),
        seq: ctx.seq,
        status: yielded ? 'yielded' : 'done',
      })
      return (await getRun(tx, runId))?.cancelRequested ?? false
    }).catch((err: unknown) => {
      throw new InfrastructureError('could not record the step', { cause: err })
    })
    if (cancelled && flight.controller.signal.reason !== SHUTDOWN)
      flight.controller.abort(CANCELLED_BY_USER)
  }
  return { after: [after] }
}
