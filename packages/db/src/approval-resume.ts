import type { Json } from '@weave/kernel'
import type { Approval } from './approval-rows.js'
import type { TenantTx } from './client.js'
import type { ResumeJob } from './jobs.js'
import { getRun } from './runs.js'

const SETTLED = ['approved', 'rejected'] as const

/**
 * The job that resumes a settled approval's run: every decision's `input` merged in order, then
 * `{ status, decisions }` under the step's `saveAs` key (last, so no decider's input can
 * overwrite the outcome), at the checkpoint the run waits at. One definition for the API, which
 * enqueues it after a decision, and the reconciler, which re-enqueues it when that was lost.
 * Returns null for an approval that is not approved or rejected.
 */
export async function settledApprovalResumeJob(
  tx: TenantTx,
  approval: Approval,
): Promise<ResumeJob | null> {
  const status = approval.status
  if (!(SETTLED as readonly string[]).includes(status)) return null
  const input: ResumeJob['input'] = {}
  for (const decision of approval.decisions) {
    if (isObject(decision.input)) Object.assign(input, decision.input)
  }
  input[approval.saveAs] = {
    status,
    decisions: approval.decisions.map((d) => ({
      by: d.subject,
      decision: d.decision,
      comment: d.comment,
      at: d.at.toISOString(),
    })) as Json,
  }
  const run = await getRun(tx, approval.runId)
  const atSeq = isObject(run?.waitingOn) ? run.waitingOn.atSeq : undefined
  return {
    runId: approval.runId,
    tenant: tx.tenant,
    reason: 'approval-decided',
    input,
    ...(typeof atSeq === 'number' ? { atSeq } : {}),
  }
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
