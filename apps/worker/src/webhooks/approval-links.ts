import {
  WEBHOOK_DECIDE_SCOPE,
  admitsIntegrationLinks,
  approvalLinkTokens,
  getApproval,
  type TenantTx,
  type WebhookDeliveryRow,
  type WebhookRow,
} from '@weave/db'
import { z } from 'zod'

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

/** What deciding on an `approval.requested` delivery's links looks at. */
export interface ApprovalLinksRequest {
  delivery: Pick<WebhookDeliveryRow, 'eventType' | 'runId' | 'payload'>
  webhook: Pick<WebhookRow, 'id' | 'scopes'>
  /** WEAVE_SECRETS_KEY: the link tokens are kept encrypted under it. */
  secretsKey: Buffer
  options: ApprovalLinkOptions
  now: Date
}

const SEVEN_DAYS_MS = 7 * 24 * 3600_000

const ApprovalRequestedPayload = z.object({ data: z.object({ approvalId: z.uuid() }) })

/**
 * The single-use links (`POST /v1/approval-hooks/{token}`) an `approval.requested` delivery
 * carries, or null when it carries none: only a webhook holding `approvals:decide` gets them, only
 * while the approval is pending, and only when its rules admit a decision by an integration
 * (admitsIntegrationLinks). The tokens are minted for (approval, webhook) on the first attempt and
 * read back on later ones, so every attempt carries the same links; they expire with the
 * approval, or after `defaultTtlMs` when it has no timeout.
 */
export async function approvalLinksFor(
  tx: TenantTx,
  request: ApprovalLinksRequest,
): Promise<ApprovalLinks | null> {
  const { delivery, webhook, now } = request
  if (delivery.eventType !== 'approval.requested') return null
  if (!webhook.scopes.includes(WEBHOOK_DECIDE_SCOPE)) return null
  const payload = ApprovalRequestedPayload.safeParse(delivery.payload)
  if (!payload.success) return null
  const approval = await getApproval(tx, payload.data.data.approvalId)
  if (!approval || approval.runId !== delivery.runId || approval.status !== 'pending') return null
  if (approval.expiresAt !== null && approval.expiresAt.getTime() <= now.getTime()) return null
  if (!admitsIntegrationLinks(approval)) return null
  const ttlMs = request.options.defaultTtlMs ?? SEVEN_DAYS_MS
  const tokens = await approvalLinkTokens(tx, {
    approvalId: approval.id,
    materialHash: approval.materialHash,
    webhookId: webhook.id,
    expiresAt: approval.expiresAt ?? new Date(now.getTime() + ttlMs),
    secretsKey: request.secretsKey,
  })
  const base = `${request.options.publicUrl.replace(/\/+$/, '')}/v1/approval-hooks/`
  return { approveUrl: base + tokens.approve, rejectUrl: base + tokens.reject }
}
