import { checkpointNamespace } from './checkpoint.js'
import type { Step } from './context.js'
import type { Graph } from './graph.js'
import { budgetOf, inheritedBudget, type InternalRunOptions } from './internal.js'
import type { Delta, State } from './json.js'
import { asError } from './run-loop.js'

/** How a subgraph step maps state into the child run and the child's result back. */
export interface SubgraphOptions {
  /** The child's input; default: the state without `__` keys. */
  input?: (state: Readonly<State>) => State
  /** The parent's delta from the child's final state; default: the child state without `__` keys. */
  output?: (childState: Readonly<State>, state: Readonly<State>) => Delta
}

/**
 * A step that runs `child` as a nested run `<runId>/<step>` on the same store, signal and budget.
 * A yielding child yields the parent; resuming the parent resumes the child, at any depth.
 */
export function subgraph(child: Graph, o: SubgraphOptions = {}): Step {
  return async (state, ctx) => {
    const childRunId = `${ctx.runId}/${ctx.step}`
    const budget = budgetOf(ctx)
    const nested: InternalRunOptions = budget === undefined ? {} : { [inheritedBudget]: budget }
    const shared = { ...nested, ...(ctx.store ? { store: ctx.store } : {}), signal: ctx.signal }

    const resumable =
      ctx.resumeInput !== undefined &&
      ctx.store !== undefined &&
      (await ctx.store.get(checkpointNamespace(child.name), childRunId)) !== undefined
    const result = resumable
      ? await child.resume(childRunId, ctx.resumeInput as State, { ...shared, store: ctx.store! })
      : await child.run(o.input ? o.input(state) : withoutProtocolKeys(state), {
          ...shared,
          runId: childRunId,
        })

    switch (result.stopReason) {
      case 'completed':
        return o.output ? o.output(result.state, state) : withoutProtocolKeys(result.state)
      case 'yielded':
        // The child's reason travels up, so the root's result says why the run waits.
        return {
          __yield: true,
          __yield_phase: 'mid_step',
          __yield_reason: result.yield?.reason ?? null,
          __child_run_id: childRunId,
        }
      default:
        throw asError(
          result.error ?? new Error(`subgraph "${child.name}" stopped: ${result.stopReason}`),
        )
    }
  }
}

function withoutProtocolKeys(state: Readonly<State>): State {
  const out: State = {}
  for (const key of Object.keys(state)) if (!key.startsWith('__')) out[key] = state[key]!
  return out
}
