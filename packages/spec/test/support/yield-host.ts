import type { Json, RunResult } from '@weave/kernel'
import { readYieldReason, type ApprovalDecisions, type YieldReason } from '@weave/spec'

/**
 * A stand-in for the worker around compiled steps: it keeps every yield reason the runs hand back
 * and settles approval decisions the way the approvals table would, by run, step and material.
 */
export interface YieldHost {
  /** Every yield reason seen, in order. */
  readonly reasons: YieldReason[]
  /** Passes a run's result through, keeping its yield reason. */
  record(result: RunResult): RunResult
  /** Settles the decision an approval step at `step` of `runId` completes with on its resume. */
  settle(runId: string, step: string, record: Json): void
  /** The `approvals` dependency to compile with. */
  readonly approvals: ApprovalDecisions
  /** The material hashes approval steps asked about, in order. */
  readonly asked: string[]
}

export function createYieldHost(): YieldHost {
  const reasons: YieldReason[] = []
  const asked: string[] = []
  const settled = new Map<string, Json>()
  return {
    reasons,
    asked,
    record(result) {
      if (result.yield) {
        const reason = readYieldReason(result.yield.reason)
        if (reason) reasons.push(reason)
      }
      return result
    },
    settle(runId, step, record) {
      settled.set(`${runId}\u0000${step}`, record)
    },
    approvals: {
      decision: async ({ runId, step, materialHash }) => {
        asked.push(materialHash)
        return settled.get(`${runId}\u0000${step}`) ?? null
      },
    },
  }
}
