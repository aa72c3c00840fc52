import type { Json, Step } from '@weave/kernel'
import { parseDuration } from '../duration.js'
import { ExpressionError } from '../errors.js'
import { compileExpression, type CompiledExpression } from '../expression.js'
import { isJsonObject } from '../json-value.js'
import type { WaitStepSpec } from '../step-schema.js'
import type { WaitReason } from '../yield-reasons.js'
import type { StepCompileContext } from './step-compiler.js'

function storedUntil(saved: Json | undefined): number | undefined {
  if (!isJsonObject(saved) || typeof saved.until !== 'string') return undefined
  const ms = Date.parse(saved.until)
  return Number.isNaN(ms) ? undefined : ms
}

async function untilFrom(expr: CompiledExpression, state: Parameters<Step>[0], step: string) {
  const value = await expr.evaluate(state, step)
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN
  if (!Number.isFinite(ms)) {
    throw new ExpressionError(
      step,
      expr.source,
      'error',
      `until must be an ISO 8601 time or epoch milliseconds, got ${JSON.stringify(value ?? null)}`,
    )
  }
  return ms
}

/**
 * `wait`: on a first visit it stores `{ until }` under `saveAs` (default: the step name) and
 * yields; resumed at or after `until` it completes, resumed early it yields again with the same
 * `until`. An `until` already past completes at once.
 */
export function compileWaitStep(name: string, step: WaitStepSpec, cx: StepCompileContext): Step {
  const durationMs = step.duration === undefined ? undefined : parseDuration(step.duration)
  const until = step.until === undefined ? undefined : compileExpression(step.until, cx.limits)
  const saveAs = step.saveAs ?? name
  const reason = (ctx: Parameters<Step>[1], at: number): WaitReason => ({
    kind: 'wait',
    runId: ctx.runId,
    step: ctx.step,
    seq: ctx.seq,
    until: new Date(at).toISOString(),
  })
  return async (state, ctx) => {
    const now = cx.now().getTime()
    const stored = ctx.resumeInput === undefined ? undefined : storedUntil(state[saveAs])
    if (stored !== undefined) {
      if (now >= stored) return {}
      return { __yield: true, __yield_reason: reason(ctx, stored) }
    }
    const at =
      durationMs !== undefined ? now + durationMs : await untilFrom(until!, state, ctx.step)
    const saved = { until: new Date(at).toISOString() }
    if (at <= now) return { [saveAs]: saved }
    return { __yield: true, __yield_reason: reason(ctx, at), [saveAs]: saved }
  }
}
