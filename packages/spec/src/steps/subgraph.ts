import { subgraph, type Graph, type State, type Step } from '@weave/kernel'
import { ExpressionError, SpecCompileError } from '../errors.js'
import { compileExpression } from '../expression.js'
import { isJsonObject, withoutProtocolKeys } from '../json-value.js'
import type { SubgraphStepSpec } from '../step-schema.js'
import type { StepCompileContext } from './step-compiler.js'

type SubgraphFields = Omit<SubgraphStepSpec, 'kind' | 'next'>

/**
 * `subgraph`: the child is loaded once, at compile time. The kernel runs it as a child run
 * (resumed with the parent's resume input when it had yielded); `input` maps the parent's
 * state to the child's input, and the child's final state (without `__` keys) is the delta,
 * or is saved under `saveAs`.
 * @throws SpecCompileError when no loader is given or the loader fails.
 */
export async function compileSubgraphStep(
  path: string,
  step: SubgraphFields,
  cx: StepCompileContext,
): Promise<Step> {
  if (!cx.deps.loadSubgraph) {
    throw new SpecCompileError([{ path, message: 'subgraph steps need deps.loadSubgraph' }])
  }
  let child: Graph
  try {
    child = await cx.deps.loadSubgraph(step.graph, step.version)
  } catch (err) {
    const message = `cannot load graph "${step.graph}": ${(err as Error).message}`
    throw new SpecCompileError([{ path, message }], { cause: err })
  }
  const input = step.input === undefined ? undefined : compileExpression(step.input, cx.limits)
  const saveAs = step.saveAs
  const output = (childState: Readonly<State>) => {
    const visible = withoutProtocolKeys(childState)
    if (saveAs !== undefined) return { [saveAs]: visible }
    // Merged into the parent, the child's state may not carry the parent's decision records:
    // a child that wrote one would make it say "approved" without a decision.
    for (const key of cx.recordKeys) delete visible[key]
    return visible
  }
  if (input === undefined) return subgraph(child, { output })
  return async (state, ctx) => {
    // The kernel asks for the input synchronously and only for a fresh child run, so it is
    // evaluated ahead and an evaluation error surfaces only if the input is actually needed.
    let mapped: State | undefined
    let failure: unknown
    try {
      const value = await input.evaluate(state, ctx.step)
      if (isJsonObject(value)) mapped = value
      else {
        const got = JSON.stringify(value ?? null)
        failure = new ExpressionError(
          ctx.step,
          input.source,
          'error',
          `subgraph input must be an object, got ${got}`,
        )
      }
    } catch (err) {
      failure = err
    }
    const run = subgraph(child, {
      input: () => {
        if (mapped === undefined) throw failure
        return mapped
      },
      output,
    })
    return run(state, ctx)
  }
}
