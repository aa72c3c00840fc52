import type { Step } from '@weave/kernel'
import { validateAgainstSchema } from '../json-schema.js'
import type { InputStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import type { InputReason } from '../yield-reasons.js'
import type { StepCompileContext } from './step-compiler.js'

/**
 * `input`: yields for outside input; resumed with input (valid against `schema`, when given)
 * it completes, saving the input under `saveAs` when set. Input that does not validate, or a
 * resume without input, yields again.
 */
export function compileInputStep(step: InputStepSpec, cx: StepCompileContext): Step {
  const prompt = step.prompt === undefined ? undefined : compileTemplate(step.prompt, cx.limits)
  const schema = step.schema
  return async (state, ctx) => {
    const input = ctx.resumeInput
    if (
      input !== undefined &&
      (schema === undefined || validateAgainstSchema(schema, input).length === 0)
    ) {
      return step.saveAs === undefined ? {} : { [step.saveAs]: { ...input } }
    }
    const reason: InputReason = {
      kind: 'input',
      runId: ctx.runId,
      step: ctx.step,
      seq: ctx.seq,
      prompt: prompt === undefined ? null : await prompt.render(state, ctx.step),
      schema: schema ?? null,
      saveAs: step.saveAs ?? null,
    }
    return { __yield: true, __yield_reason: reason }
  }
}
