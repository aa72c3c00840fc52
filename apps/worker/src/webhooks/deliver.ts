import {
  abandonDelivery,
  getDeliveryToSend,
  readWebhookSecret,
  recordDeliveryAttempt,
  withTenant,
  type Database,
  type DeliverJob,
} from '@weave/db'
import type { LookupAll } from '@weave/spec'
import { Webhook } from 'standardwebhooks'
import { retryDelayMs, type DeliverySettings } from './delivery-settings.js'
import { sendWebhook, type WebhookResponse } from './send-webhook.js'

/** What sending a delivery needs. */
export interface DeliverDeps {
  database: Database
  /** Decrypts the webhooks' signing secrets. */
  secretsKey: Buffer
  /** The `WEAVE_HTTP_ALLOW` list. */
  allow: readonly string[]
  settings: DeliverySettings
  lookup?: LookupAll
  now?: () => Date
}

/** What one delivery job did; `retry` asks for the job to run again after `delayMs`. */
export type DeliveryOutcome =
  | { kind: 'skipped'; reason: 'missing' | 'not-pending' | 'superseded' }
  | { kind: 'abandoned' }
  | { kind: 'not-due'; delayMs: number }
  | { kind: 'succeeded' | 'failed'; attempt: number; statusCode: number | null }
  | { kind: 'retry'; attempt: number; statusCode: number | null; delayMs: number }

/**
 * Makes one attempt of a pending delivery: signs the payload per Standard Webhooks (`webhook-id`
 * = the delivery id, the same on every attempt, so receivers can drop duplicates), POSTs it, and
 * records the attempt with its status code or error. A 2xx succeeds; anything else is retried
 * with capped exponential backoff until `maxAttempts` attempts, then the delivery fails.
 */
export async function deliverOnce(deps: DeliverDeps, job: DeliverJob): Promise<DeliveryOutcome> {
  const now = deps.now ?? (() => new Date())
  const found = await withTenant(deps.database, job.tenant, (tx) =>
    getDeliveryToSend(tx, job.deliveryId),
  )
  if (!found) return { kind: 'skipped', reason: 'missing' }
  const { delivery, webhook } = found
  if (delivery.status !== 'pending') return { kind: 'skipped', reason: 'not-pending' }
  if (!webhook) {
    await withTenant(deps.database, job.tenant, (tx) => abandonDelivery(tx, delivery.id))
    return { kind: 'abandoned' }
  }
  const early = delivery.nextAttemptAt.getTime() - now().getTime()
  if (early > 1000) return { kind: 'not-due', delayMs: early }

  const started = now()
  const body = JSON.stringify(delivery.payload)
  let response: WebhookResponse
  try {
    const signer = new Webhook(readWebhookSecret(deps.secretsKey, webhook))
    response = await sendWebhook({
      url: webhook.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Weave-Webhooks/1',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(started.getTime() / 1000)),
        'webhook-signature': signer.sign(delivery.id, started, body),
      },
      allow: deps.allow,
      timeoutMs: deps.settings.timeoutMs,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
    })
  } catch (err) {
    // The secret does not decrypt (WEAVE_SECRETS_KEY changed): an attempt that sent nothing.
    response = { statusCode: null, error: (err as Error).message, isSuccess: false }
  }
  const durationMs = now().getTime() - started.getTime()

  const attempt = delivery.attempts + 1
  const isLast = attempt >= deps.settings.maxAttempts
  const delayMs = retryDelayMs(deps.settings, attempt)
  const outcome = response.isSuccess ? 'succeeded' : isLast ? 'failed' : 'pending'
  const recorded = await withTenant(deps.database, job.tenant, (tx) =>
    recordDeliveryAttempt(tx, {
      deliveryId: delivery.id,
      attemptsBefore: delivery.attempts,
      statusCode: response.statusCode,
      error: response.error,
      durationMs,
      outcome,
      ...(outcome === 'pending' ? { nextAttemptAt: new Date(now().getTime() + delayMs) } : {}),
    }),
  )
  if (!recorded) return { kind: 'skipped', reason: 'superseded' }
  const { statusCode } = response
  if (outcome === 'pending') return { kind: 'retry', attempt, statusCode, delayMs }
  return { kind: outcome, attempt, statusCode }
}
