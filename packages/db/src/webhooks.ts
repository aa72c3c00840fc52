import { randomUUID } from 'node:crypto'
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { decodeTimeCursor, pageSize, toPage } from './cursor.js'
import type { Page, PageOptions } from './page.js'
import { decryptSecret, encryptSecret, generateWebhookSecret } from './secret-box.js'
import { webhookDeliveries, webhooks } from './schema/webhooks.js'
import { isUuid } from './uuid.js'

/** A stored webhook; `secretCiphertext` never leaves the API or the worker. */
export type WebhookRow = typeof webhooks.$inferSelect

/** What `createWebhook` stores. */
export interface CreateWebhookInput {
  url: string
  /** Run event types the webhook receives. */
  events: readonly string[]
  createdBy: string
}

/** The authenticated data binding a webhook's secret ciphertext to its tenant and row. */
function secretContext(tenant: string, webhookId: string): string {
  return `webhook:${tenant}:${webhookId}`
}

/**
 * Registers a webhook with a new signing secret, stored encrypted under `key`. The returned
 * `secret` is the only time it is available in clear from the API (webhooks.int.test.ts).
 */
export async function createWebhook(
  tx: TenantTx,
  key: Buffer,
  input: CreateWebhookInput,
): Promise<{ webhook: WebhookRow; secret: string }> {
  const id = randomUUID()
  const secret = generateWebhookSecret()
  const [webhook] = await tx.db
    .insert(webhooks)
    .values({
      id,
      tenantId: tx.tenant,
      url: input.url,
      events: [...new Set(input.events)],
      secretCiphertext: encryptSecret(key, secret, secretContext(tx.tenant, id)),
      createdBy: input.createdBy,
    })
    .returning()
  return { webhook: webhook as WebhookRow, secret }
}

/**
 * A webhook's signing secret in clear.
 * @throws SecretDecryptionError when `key` is not the key it was stored under.
 */
export function readWebhookSecret(key: Buffer, webhook: WebhookRow): string {
  return decryptSecret(key, webhook.secretCiphertext, secretContext(webhook.tenantId, webhook.id))
}

/** The tenant's webhook that is not deleted, or null (also for an id that is not a UUID). */
export async function getWebhook(tx: TenantTx, id: string): Promise<WebhookRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.tenantId, tx.tenant), eq(webhooks.id, id), isNull(webhooks.deletedAt)))
  return row ?? null
}

/**
 * The tenant's webhooks that are not deleted, newest first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listWebhooks(
  tx: TenantTx,
  options: PageOptions = {},
): Promise<Page<WebhookRow>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  const rows = await tx.db
    .select()
    .from(webhooks)
    .where(
      and(
        eq(webhooks.tenantId, tx.tenant),
        isNull(webhooks.deletedAt),
        after
          ? sql`(${webhooks.createdAt}, ${webhooks.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(desc(webhooks.createdAt), desc(webhooks.id))
    .limit(limit + 1)
  return toPage(rows, limit, (w) => [w.createdAt.toISOString(), w.id])
}

/**
 * Deletes a webhook (soft: its deliveries stay readable to the database) and fails its pending
 * deliveries, so nothing more is sent to it. Returns the webhook, or null when there was none.
 */
export async function deleteWebhook(tx: TenantTx, id: string): Promise<WebhookRow | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .update(webhooks)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(webhooks.tenantId, tx.tenant), eq(webhooks.id, id), isNull(webhooks.deletedAt)))
    .returning()
  if (!row) return null
  await tx.db
    .update(webhookDeliveries)
    .set({ status: 'failed', updatedAt: sql`now()` })
    .where(
      and(
        eq(webhookDeliveries.tenantId, tx.tenant),
        eq(webhookDeliveries.webhookId, id),
        eq(webhookDeliveries.status, 'pending'),
      ),
    )
  return row
}
