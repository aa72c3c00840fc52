import { subgraph, type Graph, type State, type StepContext } from '@weave/kernel'
import { SpecCompileError, SubgraphToolWaitError } from '../errors.js'
import { withoutProtocolKeys } from '../json-value.js'
import { childUsage, withBudgetLeft, type BudgetLeft, type SpentUsage } from './agent-budget.js'
import type { StepCompileContext } from './step-compiler.js'

/** A tool that runs a registered graph. */
export interface SubgraphToolCall {
  kind: 'subgraph'
  graph: string
  version?: number | undefined
}

/**
 * A subgraph tool: each call runs the graph as a child run of the agent's run, with the call's
 * arguments as its input and its final state (without `__` keys) as the result. The child run
 * is named by the call (`<runId>/<step>:<callId>`), so its steps are checkpointed like any
 * subgraph's: a resumed run picks the child up where it stopped, and a child that had finished
 * gives its result again without running a step twice. Registration refuses a graph that can
 * wait (validate-subgraphs.ts); one that waits anyway fails the call. The child's agent steps run
 * within what the calling agent has left of its budgets, and what they spent (read from the
 * conversations in the child's final state) is reported through `spend`, so it counts against
 * the caller's budgets too.
 * @throws SpecCompileError when no graph loader is given.
 */
export function subgraphRunner(
  tool: string,
  call: SubgraphToolCall,
  cx: StepCompileContext,
  path: string,
): (
  invocation: {
    callId: string
    args: State
    budget?: BudgetLeft
    spend?: (usage: SpentUsage) => void
  },
  ctx: StepContext,
) => Promise<string> {
  const loadSubgraph = cx.deps.loadSubgraph
  if (!loadSubgraph) {
    throw new SpecCompileError([{ path, message: 'subgraph tools need deps.loadSubgraph' }])
  }
  // Loaded on first use: the agent's other tools do not wait on it, and a failed load is tried
  // again by the next call rather than remembered.
  let loading: Promise<Graph> | undefined
  const child = () => {
    loading ??= loadSubgraph(call.graph, call.version).catch((err: unknown) => {
      loading = undefined
      throw err
    })
    return loading
  }
  return async ({ callId, args, budget, spend }, ctx) => {
    let spent: SpentUsage | undefined
    const run = subgraph(await child(), {
      input: () => args,
      output: (final) => {
        spent = childUsage(args, final)
        return withoutProtocolKeys(final)
      },
    })
    // The kernel names a child run after its step; one child per call, and no `/` from the
    // call id, which would read as a deeper nesting.
    const step = `${ctx.step}:${encodeURIComponent(callId)}`
    const delta = await withBudgetLeft(budget ?? {}, async () => run(args, { ...ctx, step }))
    if ((delta as State).__yield === true) {
      throw new SubgraphToolWaitError(ctx.step, tool, call.graph)
    }
    if (spent !== undefined) spend?.(spent)
    return JSON.stringify(delta)
  }
}
