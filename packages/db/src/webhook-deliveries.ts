import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Database, TenantTx } from './client.js'
import { decodeTimeCursor, newestFirst, pageSize, toPage } from './cursor.js'
import type { Page, PageOptions } from './page.js'
import { webhookAttempts, webhookDeliveries, webhooks } from './schema/webhooks.js'
import { isUuid } from './uuid.js'

/** A stored delivery. */
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect

/** A stored attempt of a delivery. */
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect

/** A delivery with its attempts, oldest first. */
export type WebhookDelivery = WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] }

/** Names a delivery across tenants: what delivery jobs and notifications carry. */
export interface DeliveryRef {
  tenant: string
  id: string
}

/**
 * The Postgres channel a trigger notifies with `{"tenant","id"}` when a delivery is created.
 * Deliveries are created with their event, in its transaction: one pending delivery per webhook
 * of the tenant subscribed to the event's type, payload `{ type, timestamp, data }` (Standard
 * Webhooks) with the event's data plus `runId` and `seq` (weave_append_run_event).
 * Postgres sends a notification only when its transaction commits, so a listener never sees a
 * delivery that was rolled back, and no code that appends an event has to enqueue anything.
 */
export const WEBHOOK_DELIVERY_CHANNEL = 'weave_webhook_deliveries'

/** A delivery and the webhook it goes to (null when the webhook was deleted). */
export interface DeliveryToSend {
  delivery: WebhookDeliveryRow
  webhook: typeof webhooks.$inferSelect | null
}

/** The delivery with its webhook, or null when there is no such delivery in this tenant. */
export async function getDeliveryToSend(tx: TenantTx, id: string): Promise<DeliveryToSend | null> {
  if (!isUuid(id)) return null
  const [row] = await tx.db
    .select({ delivery: webhookDeliveries, webhook: webhooks })
    .from(webhookDeliveries)
    .leftJoin(
      webhooks,
      and(eq(webhooks.id, webhookDeliveries.webhookId), isNull(webhooks.deletedAt)),
    )
    .where(and(eq(webhookDeliveries.tenantId, tx.tenant), eq(webhookDeliveries.id, id)))
  return row ? { delivery: row.delivery, webhook: row.webhook } : null
}

/** One attempt's result and where it leaves the delivery. */
export interface DeliveryAttemptInput {
  deliveryId: string
  /** The delivery's `attempts` when the attempt started; the update is a compare-and-set on it. */
  attemptsBefore: number
  statusCode: number | null
  error: string | null
  durationMs: number
  /** `pending` schedules another attempt at `nextAttemptAt`. */
  outcome: 'succeeded' | 'failed' | 'pending'
  nextAttemptAt?: Date
}

/**
 * Records an attempt and moves its delivery, both only while the delivery is still pending with
 * `attemptsBefore` attempts, so a duplicate job cannot record one attempt twice. Returns the
 * updated delivery, or null when it had moved on.
 */
export async function recordDeliveryAttempt(
  tx: TenantTx,
  input: DeliveryAttemptInput,
): Promise<WebhookDeliveryRow | null> {
  const attempt = input.attemptsBefore + 1
  const [moved] = await tx.db
    .update(webhookDeliveries)
    .set({
      status: input.outcome,
      attempts: attempt,
      updatedAt: sql`now()`,
      ...(input.nextAttemptAt ? { nextAttemptAt: input.nextAttemptAt } : {}),
    })
    .where(
      and(
        eq(webhookDeliveries.tenantId, tx.tenant),
        eq(webhookDeliveries.id, input.deliveryId),
        eq(webhookDeliveries.status, 'pending'),
        eq(webhookDeliveries.attempts, input.attemptsBefore),
      ),
    )
    .returning()
  if (!moved) return null
  await tx.db.insert(webhookAttempts).values({
    tenantId: tx.tenant,
    deliveryId: input.deliveryId,
    attempt,
    statusCode: input.statusCode,
    error: input.error,
    durationMs: Math.max(0, Math.round(input.durationMs)),
  })
  return moved
}

/** Fails a pending delivery without an attempt (its webhook was deleted); false when not pending. */
export async function abandonDelivery(tx: TenantTx, id: string): Promise<boolean> {
  if (!isUuid(id)) return false
  const rows = await tx.db
    .update(webhookDeliveries)
    .set({ status: 'failed', updatedAt: sql`now()` })
    .where(
      and(
        eq(webhookDeliveries.tenantId, tx.tenant),
        eq(webhookDeliveries.id, id),
        eq(webhookDeliveries.status, 'pending'),
      ),
    )
    .returning({ id: webhookDeliveries.id })
  return rows.length > 0
}

/**
 * A webhook's deliveries with their attempts, newest first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listWebhookDeliveries(
  tx: TenantTx,
  webhookId: string,
  options: PageOptions = {},
): Promise<Page<WebhookDelivery>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  if (!isUuid(webhookId)) return { items: [], nextCursor: null }
  const rows = await tx.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.tenantId, tx.tenant),
        eq(webhookDeliveries.webhookId, webhookId),
        after
          ? sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(...newestFirst(webhookDeliveries.createdAt, webhookDeliveries.id))
    .limit(limit + 1)
  const page = toPage(rows, limit, (d) => [d.createdAt.toISOString(), d.id])
  const attempts =
    page.items.length === 0
      ? []
      : await tx.db
          .select()
          .from(webhookAttempts)
          .where(
            and(
              eq(webhookAttempts.tenantId, tx.tenant),
              inArray(
                webhookAttempts.deliveryId,
                page.items.map((d) => d.id),
              ),
            ),
          )
          .orderBy(asc(webhookAttempts.attempt))
  return {
    items: page.items.map((d) => ({
      ...d,
      attemptLog: attempts.filter((a) => a.deliveryId === d.id),
    })),
    nextCursor: page.nextCursor,
  }
}

/** A pending delivery the sweep may need to enqueue again. */
export interface PendingDelivery extends DeliveryRef {
  nextAttemptAt: Date
}

/**
 * Pending deliveries of every tenant whose next attempt is due before `dueBefore`, soonest first,
 * after the `after` cursor when given (the last row of the previous page), for the sweep that
 * enqueues deliveries whose job was lost. Cross-tenant through a `SECURITY DEFINER` function
 * returning ids and times only (webhooks.int.test.ts).
 */
export async function listPendingDeliveries(
  database: Pick<Database, 'db'>,
  options: { dueBefore: Date; after?: PendingDelivery; limit?: number },
): Promise<PendingDelivery[]> {
  const limit = Math.min(1000, Math.max(1, Math.trunc(options.limit ?? 100)))
  const afterAt = options.after?.nextAttemptAt.toISOString() ?? null
  const afterId = options.after?.id ?? null
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    next_attempt_at: string | Date
  }>(
    sql`select * from weave_pending_webhook_deliveries(${options.dueBefore.toISOString()}::timestamptz, ${afterAt}::timestamptz, ${afterId}::uuid, ${limit})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    nextAttemptAt: new Date(r.next_attempt_at),
  }))
}
