import type { Step } from '@weave/kernel'
import { FailStepError } from '../errors.js'
import type { FailStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import type { StepCompileContext } from './step-compiler.js'

/** `fail`: fails the run with the rendered message. */
export function compileFailStep(step: FailStepSpec, cx: StepCompileContext): Step {
  const message = compileTemplate(step.message, cx.limits)
  return async (state, ctx) => {
    throw new FailStepError(ctx.step, await message.render(state, ctx.step))
  }
}
