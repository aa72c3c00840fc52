import {
  appendAudit,
  appendRunEvent,
  expireApproval,
  getRun,
  transitionRun,
  withTenant,
  type Database,
} from '@weave/db'
import type { JobQueues } from '@weave/queue'
import { WORKER_ACTOR } from './apply-stop.js'

/**
 * Expires a pending approval whose timeout passed, then resumes its run with
 * `{ status: "expired" }` under the step's key, or fails the run when the step says
 * `onTimeout: "fail"`. A no-op for an approval that was settled meanwhile.
 */
export async function expireOverdueApproval(
  deps: { database: Database; queues: JobQueues },
  tenant: string,
  approvalId: string,
): Promise<{ outcome: 'expired' | 'not-pending'; runId?: string }> {
  let runId: string | undefined
  const resume = await withTenant(deps.database, tenant, async (tx) => {
    const approval = await expireApproval(tx, approvalId)
    if (!approval) return null
    runId = approval.runId
    await appendRunEvent(tx, approval.runId, 'approval.decided', {
      approvalId,
      step: approval.step,
      status: 'expired',
    })
    await appendAudit(tx, {
      actor: WORKER_ACTOR,
      action: 'approval.expired',
      target: { kind: 'approval', id: approvalId },
      details: { runId: approval.runId, step: approval.step },
    })
    const run = await getRun(tx, approval.runId)
    const atSeq =
      typeof run?.waitingOn === 'object' && run.waitingOn && 'atSeq' in run.waitingOn
        ? Number(run.waitingOn.atSeq)
        : undefined
    if (approval.onTimeout === 'fail') {
      const error = {
        name: 'ApprovalExpiredError',
        message: `approval of step "${approval.step}" expired`,
        step: approval.step,
      }
      const failed = await transitionRun(tx, approval.runId, ['waiting'], 'failed', {
        error,
        stopReason: 'error',
      })
      if (failed) await appendRunEvent(tx, approval.runId, 'run.failed', error)
      return null
    }
    return {
      runId: approval.runId,
      input: { [approval.saveAs]: { status: 'expired', decisions: [] } },
      ...(atSeq === undefined || Number.isNaN(atSeq) ? {} : { atSeq }),
    }
  })
  if (resume) {
    await deps.queues.enqueueResume(approvalId, { ...resume, tenant, reason: 'approval-expired' })
  }
  return { outcome: runId === undefined ? 'not-pending' : 'expired', ...(runId ? { runId } : {}) }
}
