import { withTenant, type Database, type WebhookDeliveryRow, type WebhookRow } from '@weave/db'
import { approvalLinksFor, type ApprovalLinkOptions } from './approval-links.js'

/** What building one attempt's body needs. */
export interface DeliveryBodyRequest {
  database: Database
  tenant: string
  delivery: WebhookDeliveryRow
  webhook: WebhookRow
  secretsKey: Buffer
  /** Where approval links point; without it no delivery carries links. */
  approvalLinks: ApprovalLinkOptions | undefined
  now: Date
}

/**
 * The JSON body one attempt sends: the stored payload, with `approveUrl` and `rejectUrl` added to
 * its `data` when approvalLinksFor grants them. They are added to what is sent only: the stored
 * payload, like the run event, never holds a token (webhooks.int.test.ts).
 */
export async function deliveryBody(request: DeliveryBodyRequest): Promise<string> {
  const { delivery, approvalLinks } = request
  if (approvalLinks === undefined || delivery.eventType !== 'approval.requested') {
    return JSON.stringify(delivery.payload)
  }
  const links = await withTenant(request.database, request.tenant, (tx) =>
    approvalLinksFor(tx, {
      delivery,
      webhook: request.webhook,
      secretsKey: request.secretsKey,
      options: approvalLinks,
      now: request.now,
    }),
  )
  if (!links) return JSON.stringify(delivery.payload)
  const payload = delivery.payload as { data: Record<string, unknown> }
  return JSON.stringify({ ...payload, data: { ...payload.data, ...links } })
}
