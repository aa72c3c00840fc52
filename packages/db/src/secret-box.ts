import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { DbError } from './errors.js'

const KEY_BYTES = 32
const IV_BYTES = 12
const VERSION = 'v1'

/** A secret's ciphertext that does not open under this key and context (wrong key, tampered). */
export class SecretDecryptionError extends DbError {
  override name = 'SecretDecryptionError'
  constructor(options?: ErrorOptions) {
    super('secret-decryption', 'the secret does not decrypt under this key', options)
  }
}

/**
 * Parses a 32-byte key given as 64 hex digits or as base64/base64url.
 * @throws TypeError when the text is neither, or does not hold exactly 32 bytes.
 */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex')
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64')
    if (key.length === KEY_BYTES) return key
  }
  throw new TypeError('must be 32 bytes as 64 hex digits or base64')
}

/**
 * A stable development key derived (HKDF-SHA256) from the development JWT secret, so the API and
 * the workers of one development setup agree on it without another setting.
 */
export function deriveSecretsKey(jwtSecret: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', jwtSecret, 'weave', 'weave secrets key v1 (development)', KEY_BYTES),
  )
}

/**
 * Encrypts a secret with AES-256-GCM. `context` (e.g. tenant and row id) is authenticated but not
 * stored, so a ciphertext copied onto another row does not decrypt (secret-box.test.ts).
 */
export function encryptSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', checkedKey(key), iv)
  cipher.setAAD(Buffer.from(context, 'utf8'))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'))
  return [VERSION, ...parts].join('.')
}

/**
 * Decrypts what `encryptSecret` produced under the same key and context.
 * @throws SecretDecryptionError when the key, the context or the ciphertext differ.
 */
export function decryptSecret(key: Buffer, ciphertext: string, context: string): string {
  const [version, iv, tag, body] = ciphertext.split('.')
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
    throw new SecretDecryptionError()
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', checkedKey(key), Buffer.from(iv, 'base64url'))
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString('utf8')
  } catch (cause) {
    throw new SecretDecryptionError({ cause })
  }
}

/** A new Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

function checkedKey(key: Buffer): Buffer {
  if (key.length !== KEY_BYTES) throw new TypeError('the secrets key must be 32 bytes')
  return key
}
