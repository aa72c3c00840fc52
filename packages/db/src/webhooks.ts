import { randomUUID } from 'node:crypto'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { decodeTimeCursor, newestFirst, pageSize, toPage } from './cursor.js'
import type { Page, PageOptions } from './page.js'
import { approvalTokens } from './schema/approval-tokens.js'
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
  /** What the webhook may do: `approvals:decide` lets its deliveries carry approval links. */
  scopes?: readonly WebhookScope[]
  createdBy: string
}

/** The scope that lets a webhook's deliveries carry approval links. */
export const WEBHOOK_DECIDE_SCOPE = 'approvals:decide'

/** Every scope a webhook can hold. */
export const WEBHOOK_SCOPES = [WEBHOOK_DECIDE_SCOPE] as const

/** A scope a webhook can hold. */
export type WebhookScope = (typeof WEBHOOK_SCOPES)[number]

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
      scopes: [...new Set(input.scopes ?? [])],
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

/**
 * The secrets a delivery made at `now` is signed with: the current one, then the one a rotation
 * replaced while its grace lasts, so receivers still holding it keep verifying deliveries.
 * @throws SecretDecryptionError when `key` is not the key they were stored under.
 */
export function readWebhookSigningSecrets(key: Buffer, webhook: WebhookRow, now: Date): string[] {
  const secrets = [readWebhookSecret(key, webhook)]
  const { previousSecretCiphertext: previous, previousSecretExpiresAt: until } = webhook
  if (previous !== null && until !== null && until.getTime() > now.getTime()) {
    // A rotation moves the ciphertext as stored, so it is bound to the same context.
    secrets.push(decryptSecret(key, previous, secretContext(webhook.tenantId, webhook.id)))
  }
  return secrets
}

/**
 * Gives a webhook a new signing secret, stored encrypted under `key`, and returns it in clear:
 * the only time it is. The replaced secret keeps signing deliveries beside the new one for
 * `graceSeconds` (0: dropped now), measured by the database clock; a secret an earlier rotation
 * replaced is dropped. One UPDATE, so of two racing rotations the later one replaces the
 * earlier one's secret. Null when the tenant has no such webhook (webhook-rotation.int.test.ts).
 */
export async function rotateWebhookSecret(
  tx: TenantTx,
  key: Buffer,
  id: string,
  options: { graceSeconds: number },
): Promise<{ webhook: WebhookRow; secret: string } | null> {
  if (!isUuid(id)) return null
  const secret = generateWebhookSecret()
  const graceSeconds = Math.max(0, Math.trunc(options.graceSeconds))
  const [webhook] = await tx.db
    .update(webhooks)
    .set({
      // SET reads the row as it was before this UPDATE: the replaced secret, not the new one.
      previousSecretCiphertext: graceSeconds > 0 ? sql`${webhooks.secretCiphertext}` : null,
      previousSecretExpiresAt:
        graceSeconds > 0 ? sql`now() + make_interval(secs => ${graceSeconds})` : null,
      secretCiphertext: encryptSecret(key, secret, secretContext(tx.tenant, id)),
    })
    .where(and(eq(webhooks.tenantId, tx.tenant), eq(webhooks.id, id), isNull(webhooks.deletedAt)))
    .returning()
  return webhook ? { webhook, secret } : null
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
    .orderBy(...newestFirst(webhooks.createdAt, webhooks.id))
    .limit(limit + 1)
  return toPage(rows, limit, (w) => [w.createdAt.toISOString(), w.id])
}

/**
 * Deletes a webhook (soft: its deliveries stay readable to the database), fails its pending
 * deliveries, so nothing more is sent to it, and expires the unused approval links it was sent,
 * so an integration that was removed cannot decide any more. Returns the webhook, or null when
 * there was none.
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
  await tx.db
    .update(approvalTokens)
    .set({ expiresAt: sql`least(${approvalTokens.expiresAt}, now())` })
    .where(
      and(
        eq(approvalTokens.tenantId, tx.tenant),
        eq(approvalTokens.webhookId, id),
        isNull(approvalTokens.usedAt),
      ),
    )
  return row
}
