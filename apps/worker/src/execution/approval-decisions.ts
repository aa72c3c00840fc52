import type { ApprovalLifecycle } from '@weave/db'
import type { ApprovalDecisions } from '@weave/spec'
import { stepPath, type Inflight } from '../inflight.js'

/**
 * The settled decisions approval steps may complete with: only the approval the resume named
 * (a decision, an expiry), only for its own step and material, and only once. The approval is
 * marked used by the step's checkpoint write (execution-store.ts), in the same statement that
 * fences the claim, so a decision can never be used twice.
 */
export function approvalDecisions(
  lifecycle: Pick<ApprovalLifecycle, 'settledDecision'>,
  inflight: Inflight,
): ApprovalDecisions {
  return {
    async decision({ runId, step, materialHash }) {
      const flight = inflight.of(runId)
      const approvalId = flight?.approvalId
      if (!flight || !approvalId) return null
      const record = await lifecycle.settledDecision(flight.tenant, {
        approvalId,
        runId: flight.runId,
        step: stepPath(runId, step),
        materialHash,
      })
      if (!record) return null
      flight.approvalId = null
      flight.usedApprovals.set(runId, approvalId)
      return record
    },
  }
}
