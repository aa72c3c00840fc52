import { z } from 'zod'
import { DECISIONS } from '../schema/approvals.js'
import type { Approval } from './approval-rows.js'

/** Statuses an approval step completes with. */
export const SETTLED_APPROVAL_STATUSES = ['approved', 'rejected', 'expired'] as const

/**
 * What an approval step writes under its `saveAs` key when it completes: the outcome, each
 * decision with its comment and input (a decider's input lives here, never over other state),
 * and the approval it came from. Built only from the approvals table.
 */
export const DecisionRecord = z.object({
  status: z.enum(SETTLED_APPROVAL_STATUSES),
  approvalId: z.uuid(),
  decisions: z.array(
    z.object({
      by: z.string(),
      decision: z.enum(DECISIONS),
      comment: z.string().nullable(),
      input: z.json().nullable(),
      at: z.iso.datetime(),
    }),
  ),
})
/** What an approval step writes under its `saveAs` key. */
export type DecisionRecord = z.infer<typeof DecisionRecord>

/** The record of a settled approval, or null while it is pending or was cancelled. */
export function decisionRecord(approval: Approval): DecisionRecord | null {
  const status = approval.status
  if (!(SETTLED_APPROVAL_STATUSES as readonly string[]).includes(status)) return null
  return {
    status: status as DecisionRecord['status'],
    approvalId: approval.id,
    decisions: approval.decisions.map((d) => ({
      by: d.subject,
      decision: d.decision,
      comment: d.comment,
      input: (d.input ?? null) as DecisionRecord['decisions'][number]['input'],
      at: d.at.toISOString(),
    })),
  }
}
