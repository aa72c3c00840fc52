import {
  DELIVERY_STATUSES,
  RUN_EVENT_DATA,
  RUN_EVENT_TYPES,
  TENANT_EVENT_DATA,
  TENANT_EVENT_TYPES,
  WEBHOOK_SCOPES,
  type RunEventType,
  type TenantEventType,
} from '@weave/db'
import { z } from 'zod'
import { PageQuery, Text, Timestamp, pageOf } from './common.js'

const WEBHOOK_ID = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f'
const CREATED = {
  id: WEBHOOK_ID,
  url: 'https://hooks.example.com/weave',
  events: ['approval.requested', 'run.completed'],
  scopes: ['approvals:decide'],
  createdBy: 'alice',
  createdAt: '2025-01-31T09:30:00.000Z',
}

/** Every event type a webhook can subscribe to: a run's, a thread's or a schedule's. */
export const WEBHOOK_EVENT_TYPES = [...RUN_EVENT_TYPES, ...TENANT_EVENT_TYPES] as const

/** An event type a webhook can subscribe to. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** `POST /v1/webhooks`. */
export const CreateWebhookBody = z
  .strictObject({
    url: Text()
      .max(2048)
      .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
      .meta({
        description:
          'Where deliveries are POSTed. Private, loopback and link-local addresses are refused ' +
          'unless the server allow-lists them (WEAVE_HTTP_ALLOW); redirects are not followed.',
      }),
    events: z
      .array(z.enum(WEBHOOK_EVENT_TYPES))
      .min(1)
      .max(WEBHOOK_EVENT_TYPES.length)
      .meta({ description: 'Event types to deliver: run, thread and schedule events' }),
    scopes: z
      .array(z.enum(WEBHOOK_SCOPES))
      .max(WEBHOOK_SCOPES.length)
      .optional()
      .meta({
        description:
          'What the webhook may do. `approvals:decide`: its `approval.requested` deliveries ' +
          'carry single-use `approveUrl` and `rejectUrl` links; registering it needs a token ' +
          'holding `approvals:decide` too.',
      }),
  })
  .meta({
    id: 'CreateWebhookBody',
    examples: [{ url: CREATED.url, events: CREATED.events, scopes: CREATED.scopes }],
  })
/** `POST /v1/webhooks`. */
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>

/** A webhook subscription; its secret is never shown again after creation. */
export const WebhookView = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()),
    scopes: z.array(z.string()),
    createdBy: z.string(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Webhook', examples: [CREATED] })
/** A webhook. */
export type WebhookView = z.infer<typeof WebhookView>

/** `POST /v1/webhooks` answer: the webhook and its signing secret, shown this once. */
export const CreatedWebhook = WebhookView.extend({
  secret: z.string().meta({
    description:
      'The Standard Webhooks signing secret (`whsec_…`). Shown only in this response: store it ' +
      'to verify the `webhook-signature` header of each delivery.',
  }),
}).meta({
  id: 'CreatedWebhook',
  examples: [{ ...CREATED, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }],
})
/** A created webhook. */
export type CreatedWebhook = z.infer<typeof CreatedWebhook>

/** Longest grace a rotation gives the replaced secret: 7 days. */
const MAX_GRACE_SECONDS = 7 * 24 * 3600

/** `POST /v1/webhooks/{id}/rotate-secret`; a request may send none. */
export const RotateSecretBody = z
  .strictObject({
    graceSeconds: z
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .optional()
      .meta({
        description:
          'How long deliveries stay signed with the replaced secret too (default 24 h, at most ' +
          '7 days; 0 drops it now)',
      }),
  })
  .meta({ id: 'RotateWebhookSecretBody', examples: [{ graceSeconds: 3600 }] })
/** `POST /v1/webhooks/{id}/rotate-secret` body. */
export type RotateSecretBody = z.infer<typeof RotateSecretBody>

/** `POST /v1/webhooks/{id}/rotate-secret` answer: the new secret, shown this once. */
export const RotatedSecret = z
  .object({
    id: z.uuid(),
    secret: z.string().meta({
      description: 'The new signing secret (`whsec_…`). Shown only in this response.',
    }),
    previousSecretExpiresAt: Timestamp.nullable().meta({
      description:
        'Until then each delivery carries a signature by the replaced secret too; null when ' +
        'it was dropped at once',
    }),
  })
  .meta({
    id: 'RotatedWebhookSecret',
    examples: [
      {
        id: WEBHOOK_ID,
        secret: 'whsec_3BNBbqBCSmXI0LmWNpfqgHVAczJzdNKD',
        previousSecretExpiresAt: '2025-02-01T09:30:00.000Z',
      },
    ],
  })
/** A rotated secret. */
export type RotatedSecret = z.infer<typeof RotatedSecret>

/** `GET /v1/webhooks`. */
export const WebhookPage = pageOf(WebhookView).meta({ id: 'WebhookPage' })
/** `GET /v1/webhooks`. */
export type WebhookPage = z.infer<typeof WebhookPage>

/** One HTTP attempt of a delivery. */
export const DeliveryAttemptView = z
  .object({
    attempt: z.int(),
    statusCode: z.int().nullable().meta({ description: 'Null when no response came' }),
    error: z.string().nullable().meta({ description: 'Why the attempt got no 2xx, if known' }),
    durationMs: z.int(),
    at: Timestamp,
  })
  .meta({ id: 'WebhookDeliveryAttempt' })

/** One event sent (or being sent) to a webhook, with every attempt. */
export const DeliveryView = z
  .object({
    id: z.uuid().meta({ description: 'Also the `webhook-id` header of every attempt' }),
    webhookId: z.uuid(),
    eventType: z.string(),
    runId: z.uuid().nullable().meta({ description: "A run event's run; null otherwise" }),
    eventSeq: z.int().nullable().meta({ description: "A run event's number; null otherwise" }),
    eventId: z
      .uuid()
      .nullable()
      .meta({ description: "A thread or schedule event's id; null for a run event" }),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.array(DeliveryAttemptView),
    nextAttemptAt: Timestamp.nullable().meta({ description: 'When pending: the next attempt' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({
    id: 'WebhookDelivery',
    examples: [
      {
        id: '3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b',
        webhookId: WEBHOOK_ID,
        eventType: 'run.completed',
        runId: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11',
        eventSeq: 7,
        eventId: null,
        status: 'succeeded',
        attempts: [
          {
            attempt: 1,
            statusCode: 503,
            error: null,
            durationMs: 41,
            at: '2025-01-31T09:30:01.000Z',
          },
          {
            attempt: 2,
            statusCode: 200,
            error: null,
            durationMs: 38,
            at: '2025-01-31T09:30:02.000Z',
          },
        ],
        nextAttemptAt: null,
        createdAt: '2025-01-31T09:30:01.000Z',
        updatedAt: '2025-01-31T09:30:02.000Z',
      },
    ],
  })
/** A delivery. */
export type DeliveryView = z.infer<typeof DeliveryView>

/** `GET /v1/webhooks/{id}/deliveries`. */
export const DeliveryPage = pageOf(DeliveryView).meta({ id: 'WebhookDeliveryPage' })
/** `GET /v1/webhooks/{id}/deliveries`. */
export type DeliveryPage = z.infer<typeof DeliveryPage>

/** `?limit=&cursor=` of the webhook lists. */
export const WebhookPageQuery = PageQuery

// What each delivery's `data` adds to its event's data (weave_append_run_event).
const DELIVERY_MARKERS = {
  runId: z.uuid().meta({ description: 'The run the event belongs to' }),
  eventSeq: z.int().meta({ description: "The event's id (sequence number) within the run" }),
}

// Only to a webhook holding `approvals:decide`, and only while the server has a public URL.
const APPROVAL_LINKS = {
  approveUrl: z
    .url()
    .optional()
    .meta({
      description:
        'POST here to approve, once (`POST /v1/approval-hooks/{token}`). Sent only to a webhook ' +
        'holding `approvals:decide`, by a server with a public URL, while the approval is ' +
        'pending, and only when no rule depends on who decides: never for a step with ' +
        '`separationOfDuties` or named `approvers`, since whoever follows a link is unknown',
    }),
  rejectUrl: z.url().optional().meta({ description: 'POST here to reject, once' }),
}

function deliveryData(type: RunEventType): z.ZodType {
  const data: z.ZodType = RUN_EVENT_DATA[type]
  const markers =
    type === 'approval.requested' ? { ...DELIVERY_MARKERS, ...APPROVAL_LINKS } : DELIVERY_MARKERS
  if (data instanceof z.ZodObject) return data.extend(markers)
  if (data instanceof z.ZodDiscriminatedUnion) {
    const options = data.options as z.ZodObject[]
    return z.union(options.map((option) => option.extend(markers)))
  }
  throw new Error(`No webhook payload for ${type}: its data is neither an object nor a union`)
}

// What each thread or schedule delivery's `data` adds to its event's data (appendTenantEvent).
const TENANT_EVENT_MARKER = {
  eventId: z.uuid().meta({ description: "The event's id, as `GET …/events` lists it" }),
}

function tenantDeliveryData(type: TenantEventType): z.ZodType {
  return (TENANT_EVENT_DATA[type] as z.ZodObject).extend(TENANT_EVENT_MARKER)
}

/** The schema name of an event type's webhook payload: `WebhookPayload_thread_run_queued`. */
export function webhookPayloadId(type: WebhookEventType): string {
  return `WebhookPayload_${type.replaceAll('.', '_')}`
}

/**
 * The body Weave POSTs to a webhook for each event type it subscribed to (Standard Webhooks:
 * `{ type, timestamp, data }`); `data` is a run event's data with `runId` and `eventSeq`, or a
 * thread or schedule event's data with `eventId`.
 */
export const WEBHOOK_PAYLOADS: Record<WebhookEventType, z.ZodType> = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [
    type,
    z
      .object({
        type: z.literal(type),
        timestamp: Timestamp.meta({ description: 'When the event happened' }),
        data: (RUN_EVENT_TYPES as readonly string[]).includes(type)
          ? deliveryData(type as RunEventType)
          : tenantDeliveryData(type as TenantEventType),
      })
      .meta({
        id: webhookPayloadId(type),
        description: `The body of a \`${type}\` delivery.`,
      }),
  ]),
) as unknown as Record<WebhookEventType, z.ZodType>
