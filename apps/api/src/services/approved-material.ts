import type { ApprovalRow } from '@weave/db'
import {
  MergeConfig,
  append,
  merge,
  mergeObject,
  overwrite,
  sum,
  type Json,
  type MergePolicy,
  type State,
} from '@weave/kernel'
import {
  approvalMaterialHash,
  compileExpression,
  compileTemplate,
  type GraphSpec,
  type MergePolicyName,
} from '@weave/spec'

/** An approval whose material a client's input would change. */
export interface ChangedApproval {
  approvalId: string
  step: string
  /** The root checkpoint at which the approval was asked: its step runs again from there. */
  rootSeq: number
}

// The spec's policy names, as compileGraph maps them onto the kernel's merge policies.
const POLICIES: Record<MergePolicyName, MergePolicy> = { overwrite, append, sum, mergeObject }

/**
 * The state a run continues with from a checkpoint's `state` once `input` is merged in, as the
 * kernel merges a resume's or fork's input: by the graph's merge policies, others overwriting.
 */
export function continuedState(spec: GraphSpec, state: State, input: State): State {
  const config = new MergeConfig()
  for (const [key, name] of Object.entries(spec.merge ?? {})) config.register(key, POLICIES[name])
  return merge(state, input, config)
}

/**
 * The approvals (of the run's own approval steps, as `approvalsUsedUpTo` lists them) whose
 * material, rendered from `after` as the approval step renders it, is neither the material that
 * was approved nor the material `before` renders: what the client's input changed. Material the
 * run's own later steps changed (`before` differs too) was not changed by the client. A render
 * that fails counts as material of its own, so an input that breaks a title is a change.
 */
export async function changedApprovals(
  spec: GraphSpec,
  approvals: readonly ApprovalRow[],
  before: State,
  after: State,
): Promise<ChangedApproval[]> {
  const changed: ChangedApproval[] = []
  for (const approval of approvals) {
    const step = Object.hasOwn(spec.steps, approval.step) ? spec.steps[approval.step] : undefined
    if (step?.kind !== 'approval') continue
    const render = materialRenderer(step.title, step.details, approval.step)
    const shown = await render(after)
    if (shown === approval.materialHash || shown === (await render(before))) continue
    changed.push({
      approvalId: approval.id,
      step: approval.step,
      rootSeq: approval.rootSeq ?? approval.seq,
    })
  }
  return changed
}

/** Renders an approval step's material hash from a state; null when the render fails. */
function materialRenderer(
  title: string,
  details: string | undefined,
  step: string,
): (state: State) => Promise<string | null> {
  const template = compileTemplate(title)
  const expression = details === undefined ? undefined : compileExpression(details)
  return async (state) => {
    try {
      const shownTitle = await template.render(state, step)
      const shownDetails: Json =
        expression === undefined ? null : ((await expression.evaluate(state, step)) ?? null)
      return approvalMaterialHash(shownTitle, shownDetails)
    } catch {
      return null
    }
  }
}
