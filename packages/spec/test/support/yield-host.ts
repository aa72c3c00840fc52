import type { Json, RunResult } from '@weave/kernel'
import {
  readYieldReason,
  type ApprovalDecisions,
  type ApprovalReason,
  type YieldReason,
} from '@weave/spec'

/**
 * A stand-in for the worker around compiled steps: it keeps every yield reason the runs hand back
 * and settles approval decisions the way the approvals table would, by run, step and material.
 */
export interface YieldHost {
  /** Every yield reason seen, in order. */
  readonly reasons: YieldReason[]
  /** Every approval asked for, in order: an approval step's, or each of an agent turn's calls. */
  readonly asks: ApprovalReason[]
  /** Passes a run's result through, keeping its yield reason. */
  record(result: RunResult): RunResult
  /**
   * Settles the decision an approval step at `step` of `runId` completes with on its resume; with
   * `callId`, only that agent tool call's (which else falls back to the step's).
   */
  settle(runId: string, step: string, record: Json, callId?: string): void
  /** The `approvals` dependency to compile with. */
  readonly approvals: ApprovalDecisions
  /** The material hashes approval steps asked about, in order. */
  readonly asked: string[]
}

export function createYieldHost(): YieldHost {
  const reasons: YieldReason[] = []
  const asks: ApprovalReason[] = []
  const asked: string[] = []
  const settled = new Map<string, Json>()
  return {
    reasons,
    asks,
    asked,
    record(result) {
      if (result.yield) {
        const reason = readYieldReason(result.yield.reason)
        if (reason) reasons.push(reason)
        if (reason?.kind === 'approval') asks.push(reason)
        if (reason?.kind === 'approvals') asks.push(...reason.approvals)
      }
      return result
    },
    settle(runId, step, record, callId) {
      settled.set([runId, step, ...(callId === undefined ? [] : [callId])].join('\u0000'), record)
    },
    approvals: {
      decision: async ({ runId, step, materialHash, callId }) => {
        asked.push(materialHash)
        const own =
          callId === undefined ? undefined : settled.get(`${runId}\u0000${step}\u0000${callId}`)
        return own ?? settled.get(`${runId}\u0000${step}`) ?? null
      },
    },
  }
}
