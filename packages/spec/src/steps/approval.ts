import type { Json, Step } from '@weave/kernel'
import { approvalMaterialHash } from '../canonical-json.js'
import { parseDuration } from '../duration.js'
import { ApprovalExpiredError } from '../errors.js'
import { compileExpression } from '../expression.js'
import { isJsonObject } from '../json-value.js'
import type { ApprovalStepSpec } from '../step-schema.js'
import { compileTemplate } from '../template.js'
import type { ApprovalReason } from '../yield-reasons.js'
import type { StepCompileContext } from './step-compiler.js'

/**
 * `approval`: renders its material (title and details) and, when resumed, asks the host for the
 * settled decision the resume named on exactly that material (`deps.approvals`). With one it
 * completes, saving the decision record under `saveAs`; without one (a first visit, a crash
 * recovery, a fork whose state changed the material) it yields, so a person is asked again.
 * Nothing in the state or a resume's input can stand in for a decision.
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
    const shownTitle = await title.render(state, ctx.step)
    const shownDetails: Json =
      details === undefined ? null : ((await details.evaluate(state, ctx.step)) ?? null)
    const materialHash = approvalMaterialHash(shownTitle, shownDetails)
    if (ctx.resumeInput !== undefined && cx.deps.approvals) {
      const record = await cx.deps.approvals.decision({
        runId: ctx.runId,
        step: ctx.step,
        seq: ctx.seq,
        materialHash,
      })
      if (isJsonObject(record)) {
        if (record.status === 'expired' && onTimeout === 'fail') {
          throw new ApprovalExpiredError(ctx.step)
        }
        return { [saveAs]: record }
      }
    }
    const reason: ApprovalReason = {
      kind: 'approval',
      runId: ctx.runId,
      step: ctx.step,
      seq: ctx.seq,
      title: shownTitle,
      details: shownDetails,
      materialHash,
      approvers: step.approvers ?? null,
      required: step.required ?? 1,
      separationOfDuties: step.separationOfDuties ?? false,
      timeoutMs,
      onTimeout,
      saveAs,
      inputSchema: (step.schema as Json | undefined) ?? null,
    }
    return { __yield: true, __yield_reason: reason }
  }
}
