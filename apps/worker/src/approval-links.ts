import { createApprovalTokens, type ApprovalRow, type TenantTx } from '@weave/db'

/** Where approval links point, and how long they live when the approval has no timeout. */
export interface ApprovalLinkOptions {
  /** The API's public base URL, e.g. `https://weave.example.com`. */
  publicUrl: string
  /** Lifetime of links of an approval without `expiresAt` (default 7 days). */
  defaultTtlMs?: number
}

/** An approval's approve and reject links. */
export interface ApprovalLinks {
  approveUrl: string
  rejectUrl: string
}

const SEVEN_DAYS_MS = 7 * 24 * 3600_000

/**
 * Issues an approval's single-use approve and reject links (`POST /v1/approval-hooks/{token}`),
 * expiring with the approval, or after `defaultTtlMs` when it has no timeout. None for an
 * approval restricted to named approvers (a link's recipient is not one of them, so the decision
 * would be refused on every use) nor for one with `separationOfDuties`: whoever clicks a link is
 * unknown, so the run's own starter could approve through it, and the rule must hold on every path.
 */
export async function issueApprovalLinks(
  tx: TenantTx,
  approval: ApprovalRow,
  options: ApprovalLinkOptions,
  now: Date,
): Promise<ApprovalLinks | null> {
  const { subjects, scopes } = approval.approvers
  if (Boolean(subjects?.length) || Boolean(scopes?.length)) return null
  if (approval.separationOfDuties) return null
  const expiresAt =
    approval.expiresAt ?? new Date(now.getTime() + (options.defaultTtlMs ?? SEVEN_DAYS_MS))
  const tokens = await createApprovalTokens(tx, {
    approvalId: approval.id,
    materialHash: approval.materialHash,
    recipient: approvalLinkRecipient(approval.id),
    expiresAt,
  })
  const base = `${options.publicUrl.replace(/\/+$/, '')}/v1/approval-hooks/`
  return { approveUrl: base + tokens.approve, rejectUrl: base + tokens.reject }
}

/** The actor an approval link's decision is recorded under. */
export function approvalLinkRecipient(approvalId: string): string {
  return `approval-link:${approvalId}`
}
