import type { Step } from '@weave/kernel'
import { HandlerNotFoundError } from '../errors.js'
import type { HandlerStepSpec } from '../step-schema.js'
import { withoutProtocolKeys } from '../json-value.js'
import type { StepCompileContext } from './step-compiler.js'

/**
 * `handler`: calls the function registered under `name`, looked up at run time so a graph
 * registers and compiles even where the handler is not deployed.
 */
export function compileHandlerStep(
  step: Omit<HandlerStepSpec, 'kind' | 'next'>,
  cx: StepCompileContext,
): Step {
  return async (state, ctx) => {
    const fn = cx.deps.handlers?.get(step.name)
    if (!fn) throw new HandlerNotFoundError(ctx.step, step.name)
    return fn(withoutProtocolKeys(state), {
      config: step.config,
      runId: ctx.runId,
      step: ctx.step,
      seq: ctx.seq,
      signal: ctx.signal,
    })
  }
}
