import { sql } from 'drizzle-orm'
import { check, index, integer, jsonb, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation, TRACE_PARENT_SETTING } from './roles.js'
import { runs } from './runs.js'
import { tenantEvents } from './tenant-events.js'

/** Every status a webhook delivery can have. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

/** A webhook delivery's status. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** A tenant's subscription of an HTTP endpoint to run event types; deleting it is a soft delete. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    // AES-256-GCM under WEAVE_SECRETS_KEY, bound to the tenant and webhook id (secret-box.ts).
    secretCiphertext: text('secret_ciphertext').notNull(),
    // The secret replaced by a rotation, still signing deliveries until it expires.
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    // What the webhook may do beyond receiving events: `approvals:decide` lets its deliveries
    // carry approval links.
    scopes: text('scopes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdBy: text('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [
    index('webhooks_tenant_created').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    tenantIsolation(),
  ],
)

/**
 * One event to send to one webhook, created in the transaction that appends the event: a run
 * event (`runId`, `eventSeq`) or a thread or schedule event (`eventId`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id),
    eventType: text('event_type').notNull(),
    runId: uuid('run_id').references(() => runs.id),
    eventSeq: integer('event_seq'),
    eventId: uuid('event_id').references(() => tenantEvents.id),
    payload: jsonb('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    // The W3C traceparent of the span that created the delivery (withTenant sets it for the
    // transaction), so its sending continues that trace. A default, because deliveries are
    // inserted by SQL functions and triggers that need not know about it; null untraced.
    traceParent: text('trace_parent').default(
      sql.raw(`nullif(current_setting('${TRACE_PARENT_SETTING}', true), '')`),
    ),
  },
  (t) => [
    unique('webhook_deliveries_webhook_event').on(t.webhookId, t.runId, t.eventSeq),
    unique('webhook_deliveries_webhook_tenant_event').on(t.webhookId, t.eventId),
    check(
      'webhook_deliveries_event_check',
      sql`(run_id is not null and event_seq is not null and event_id is null) or (run_id is null and event_seq is null and event_id is not null)`,
    ),
    check(
      'webhook_deliveries_status_check',
      sql.raw(`status in (${DELIVERY_STATUSES.map((s) => `'${s}'`).join(', ')})`),
    ),
    index('webhook_deliveries_tenant_webhook_created').on(
      t.tenantId,
      t.webhookId,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    // The sweep's cross-tenant scan (weave_pending_webhook_deliveries).
    index('webhook_deliveries_pending')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    tenantIsolation(),
  ],
)

/** One HTTP attempt of a delivery: the status code it got, or why it got none. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    at: timestamptz('at').notNull().defaultNow(),
  },
  (t) => [
    unique('webhook_attempts_delivery_attempt').on(t.deliveryId, t.attempt),
    tenantIsolation(),
  ],
)
