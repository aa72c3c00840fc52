import { Webhook } from 'standardwebhooks'

/**
 * The `webhook-signature` header of one attempt: a `v1,<signature>` per secret, space-separated
 * as Standard Webhooks allows, so during a rotation's grace a receiver verifies with either the
 * replaced secret or the new one (signature-header.test.ts).
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ')
}
