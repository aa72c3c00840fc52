import type { Json, Step } from '@weave/kernel'
import { parseDuration } from '../duration.js'
import { ApprovalExpiredError } from '../errors.js'
import { compileExpression } from '../expression.js'
import { isJsonObject } from '../json-value.js'
import type { ApprovalStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import type { StepCompileContext } from './step-compiler.js'

const SETTLED = new Set(['approved', 'rejected', 'expired'])

function settledStatus(decision: Json | undefined): string | undefined {
  if (!isJsonObject(decision)) return undefined
  const status = decision.status
  return typeof status === 'string' && SETTLED.has(status) ? status : undefined
}

/**
 * `approval`: resumed with a settled decision under `saveAs` it completes (the kernel has
 * merged the decision already); otherwise it reports the approval and yields, so a resume
 * without a decision (crash recovery) simply suspends again.
 */
export function compileApprovalStep(
  name: string,
  step: ApprovalStepSpec,
  cx: StepCompileContext,
): Step {
  const title = compileTemplate(step.title, cx.limits)
  const details =
    step.details === undefined ? undefined : compileExpression(step.details, cx.limits)
  const saveAs = step.saveAs ?? name
  const timeoutMs = step.timeout === undefined ? null : parseDuration(step.timeout)
  const onTimeout = step.onTimeout ?? 'expire'
  return async (state, ctx) => {
    const status = settledStatus(ctx.resumeInput?.[saveAs])
    if (status !== undefined) {
      if (status === 'expired' && onTimeout === 'fail') throw new ApprovalExpiredError(ctx.step)
      return {}
    }
    await cx.suspend({
      kind: 'approval',
      runId: ctx.runId,
      step: ctx.step,
      seq: ctx.seq,
      title: await title.render(state, ctx.step),
      details: details === undefined ? null : ((await details.evaluate(state, ctx.step)) ?? null),
      approvers: step.approvers ?? null,
      required: step.required ?? 1,
      separationOfDuties: step.separationOfDuties ?? false,
      timeoutMs,
      onTimeout,
      saveAs,
    })
    return { __yield: true }
  }
}
