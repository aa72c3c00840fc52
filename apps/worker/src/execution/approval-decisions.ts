import type { ApprovalLifecycle } from '@weave/db'
import type { ApprovalDecisions } from '@weave/spec'
import { stepPath, type Inflight } from '../inflight.js'

/**
 * The settled decisions approval steps may complete with: only the approval the resume named
 * (a decision, an expiry), only for its own step and material, and only once. An agent's tool
 * call asked about with the other calls of its turn completes with its own approval, opened at
 * the step's seq for that call, whichever of them the resume named (the run resumed only once all
 * were settled). The approval is marked used by the step's checkpoint write
 * (execution-store.ts), in the same statement that fences the claim, so a decision can never be
 * used twice.
 */
export function approvalDecisions(
  lifecycle: Pick<ApprovalLifecycle, 'settledDecision' | 'settledCallDecision'>,
  inflight: Inflight,
): ApprovalDecisions {
  return {
    async decision({ runId, step, seq, materialHash, callId }) {
      const flight = inflight.of(runId)
      if (!flight) return null
      if (callId !== undefined) {
        const record = await lifecycle.settledCallDecision(flight.tenant, {
          runId: flight.runId,
          step: stepPath(runId, step),
          seq,
          callId,
          materialHash,
        })
        if (!record) return null
        if (flight.approvalId === record.approvalId) flight.approvalId = null
        flight.usedApprovals.set(runId, record.approvalId)
        return record
      }
      const approvalId = flight.approvalId
      if (!approvalId) return null
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
