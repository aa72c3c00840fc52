import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import type { components } from './openapi-types.js'

type Schemas = components['schemas']

/** The body of a webhook delivery: one per event type (`type`), with the event's `data`. */
export type WebhookPayload = Schemas[Extract<keyof Schemas, `WebhookPayload_${string}`>]

/** Headers as `fetch` (a `Headers`) or Node's `http` (a record) gives them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>

export { WebhookVerificationError }

/**
 * Checks that `body` is a delivery Weave signed with `secret` (Standard Webhooks: the
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` headers, a timestamp at most five
 * minutes away) and returns its payload. `body` must be the raw text as received: parsed and
 * serialised again, it may no longer match its signature. During a secret's rotation, pass both
 * secrets: a delivery signed with either verifies.
 * @throws WebhookVerificationError when no secret verifies it
 */
export function verifyWebhook(
  secret: string | readonly string[],
  body: string,
  headers: WebhookHeaders,
): WebhookPayload {
  const flat: Record<string, string> = {}
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headerValue(headers, name)
    if (value !== undefined) flat[name] = value
  }
  const secrets = typeof secret === 'string' ? [secret] : secret
  let failure: unknown = new WebhookVerificationError('No secret given')
  for (const one of secrets) {
    try {
      return new Webhook(one).verify(body, flat) as WebhookPayload
    } catch (error) {
      failure = error
    }
  }
  throw failure
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined
  }
  const record = headers as Record<string, string | readonly string[] | undefined>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return typeof value === 'string' ? value : value?.join(' ')
}
