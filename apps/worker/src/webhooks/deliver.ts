import {
  abandonDelivery,
  getDeliveryToSend,
  readWebhookSigningSecrets,
  recordDeliveryAttempt,
  withTenant,
  type Database,
  type DeliverJob,
  type DeliveryToSend,
} from '@weave/db'
import type { LookupAll } from '@weave/spec'
import type { ApprovalLinkOptions } from './approval-links.js'
import { deliveryBody } from './delivery-body.js'
import { retryDelayMs, type DeliverySettings } from './delivery-settings.js'
import { sendWebhook, type WebhookResponse } from './send-webhook.js'
import { signatureHeader } from './signature-header.js'

/** What sending a delivery needs. */
export interface DeliverDeps {
  database: Database
  /** Decrypts the webhooks' signing secrets, and keeps approval link tokens encrypted. */
  secretsKey: Buffer
  /** The `WEAVE_HTTP_ALLOW` list. */
  allow: readonly string[]
  settings: DeliverySettings
  /**
   * Where approval links point (the API's public URL). Without it no `approval.requested`
   * delivery carries links, even to a webhook holding `approvals:decide`.
   */
  approvalLinks?: ApprovalLinkOptions
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

/** The delivery a job names, with its webhook; null when the tenant has no such delivery. */
export function findDelivery(deps: DeliverDeps, job: DeliverJob): Promise<DeliveryToSend | null> {
  return withTenant(deps.database, job.tenant, (tx) => getDeliveryToSend(tx, job.deliveryId))
}

/**
 * Makes one attempt of a pending delivery, as `findDelivery` found it: builds its body (deliveryBody: approval links for a
 * webhook that may carry them), signs it per Standard Webhooks (`webhook-id` = the delivery id,
 * the same on every attempt, so receivers can drop duplicates; one signature per live secret
 * during a rotation's grace), POSTs it, and records the attempt with its status code or error.
 * A 2xx succeeds; anything else is retried with capped exponential backoff until `maxAttempts`
 * attempts, then the delivery fails.
 * @throws when Postgres fails: the job is retried, and no attempt is recorded.
 */
export async function deliverOnce(
  deps: DeliverDeps,
  job: DeliverJob,
  found: DeliveryToSend | null,
): Promise<DeliveryOutcome> {
  const now = deps.now ?? (() => new Date())
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
  let response: WebhookResponse
  try {
    const body = await deliveryBody({
      database: deps.database,
      tenant: job.tenant,
      delivery,
      webhook,
      secretsKey: deps.secretsKey,
      approvalLinks: deps.approvalLinks,
      now: started,
    })
    const secrets = readWebhookSigningSecrets(deps.secretsKey, webhook, started)
    response = await sendWebhook({
      url: webhook.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Weave-Webhooks/1',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(started.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, delivery.id, started, body),
      },
      allow: deps.allow,
      timeoutMs: deps.settings.timeoutMs,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
    })
  } catch (err) {
    // A secret or link token does not decrypt (WEAVE_SECRETS_KEY changed): an attempt that sent
    // nothing. Anything else (Postgres away) is this worker's failure, retried by the job.
    if ((err as { code?: unknown }).code !== 'secret-decryption') throw err
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
