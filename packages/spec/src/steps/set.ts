import type { Json, Step } from '@weave/kernel'
import { compileExpression } from '../expression.js'
import type { SetStepSpec } from '../step-schema.js'
import type { StepCompileContext } from './step-compiler.js'

/** `set`: evaluates each value; a value matching nothing is stored as null. */
export function compileSetStep(step: Pick<SetStepSpec, 'values'>, cx: StepCompileContext): Step {
  const values = Object.entries(step.values).map(
    ([key, source]) => [key, compileExpression(source, cx.limits)] as const,
  )
  return async (state, ctx) => {
    const delta: Record<string, Json> = {}
    for (const [key, expr] of values) delta[key] = (await expr.evaluate(state, ctx.step)) ?? null
    return delta
  }
}
