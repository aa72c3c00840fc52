import { getRun, isDatabaseUnavailable, withTenant, type Database } from '@weave/db'
import type { StepHook } from '@weave/kernel'
import { stepKey, type Inflight, type StopRequest } from '../inflight.js'
import type { WorkerMetrics } from '../metrics.js'

/**
 * A step hook could not reach Postgres. The run stops without a verdict and its job is retried
 * later, rather than the run being failed for an outage.
 */
export class InfrastructureError extends Error {
  override name = 'InfrastructureError'
  readonly code = 'infrastructure'
}

/**
 * Another claim holds the run now (the reconciler handed it to a new job after this one went
 * quiet). This execution stops before its next step and leaves the run to that claim.
 */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError'
  readonly code = 'lease-lost'
  constructor(readonly runId: string) {
    super(`run ${runId} is claimed by another job`)
  }
}

/** The run was asked to stop at this step boundary: a user's cancel, or this worker's shutdown. */
export class StopRequestedError extends Error {
  override name = 'StopRequestedError'
  readonly code = 'stop-requested'
  constructor(readonly reason: StopRequest) {
    super(reason === 'cancelled' ? 'the run was cancelled' : 'the worker is shutting down')
  }
}

/** What the step hooks need. */
export interface StepHookDeps {
  database: Database
  inflight: Inflight
  metrics?: WorkerMetrics
  /**
   * How long a claim may go unconfirmed by Postgres before a step with outside effects is let
   * start: beyond it the before-hook checks the claim first, so an executor that stalled (and
   * whose run was handed to another job) does not call out again.
   */
  leaseCheckMs: number
}

/**
 * The hooks of every graph a worker runs. Before a step: stop at this boundary if asked to,
 * confirm the claim when it has not been confirmed lately, and note the step (its seq and start)
 * for the execution store. After it: mark the step finished, so its checkpoint carries its
 * `step.completed` event, and time it. Hooks veto by throwing: nothing of the step is then written.
 */
export function stepHooks(deps: StepHookDeps): { before: StepHook[]; after: StepHook[] } {
  const { inflight } = deps
  const before: StepHook = async (step, _state, ctx) => {
    const flight = inflight.of(ctx.runId)
    if (!flight) return
    if (flight.stopRequested) throw new StopRequestedError(flight.stopRequested)
    if (performance.now() - flight.confirmedAt > deps.leaseCheckMs) {
      const run = await withTenant(deps.database, flight.tenant, (tx) =>
        getRun(tx, flight.runId),
      ).catch((err: unknown) => {
        throw new InfrastructureError('could not confirm the run claim', { cause: err })
      })
      if (run?.status !== 'running' || run.leaseToken !== flight.leaseToken) {
        throw new LeaseLostError(flight.runId)
      }
      if (run.cancelRequested) throw new StopRequestedError('cancelled')
      flight.confirmedAt = performance.now()
    }
    if (ctx.runId === flight.runId) flight.rootStepsStarted++
    flight.currentSteps.set(ctx.runId, { step, seq: ctx.seq })
    flight.stepStarts.set(stepKey(ctx.runId, ctx.seq), performance.now())
  }
  const after: StepHook = (_step, _state, ctx) => {
    const flight = inflight.of(ctx.runId)
    if (!flight) return
    const key = stepKey(ctx.runId, ctx.seq)
    flight.finishedSteps.add(key)
    const started = flight.stepStarts.get(key)
    flight.stepStarts.delete(key)
    if (started !== undefined) deps.metrics?.observeStep((performance.now() - started) / 1000)
  }
  return { before: [before], after: [after] }
}

/** The first error of a chain (a subgraph step's child run wraps its own) matching `is`. */
export function findCause<E extends Error>(
  error: unknown,
  is: (e: Error) => e is E,
  depth = 0,
): E | undefined {
  if (!(error instanceof Error) || depth > 8) return undefined
  if (is(error)) return error
  return findCause(error.cause, is, depth + 1)
}

/** True for an error that says Postgres could not be reached, anywhere in its chain. */
export function isInfrastructureFailure(error: unknown): boolean {
  return (
    findCause(error, (e): e is Error => e instanceof InfrastructureError) !== undefined ||
    findCause(error, (e): e is Error => isDatabaseUnavailable(e)) !== undefined
  )
}
