import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  SecretDecryptionError,
  decryptSecret,
  deriveSecretsKey,
  encryptSecret,
  generateWebhookSecret,
  parseSecretsKey,
} from '@weave/db'

describe('secret box', () => {
  const key = randomBytes(32)

  it('round-trips a secret under the same key and context, without storing it in clear', () => {
    const secret = generateWebhookSecret()
    const sealed = encryptSecret(key, secret, 'webhook:t:1')
    expect(sealed).not.toContain(secret.slice(6))
    expect(decryptSecret(key, sealed, 'webhook:t:1')).toBe(secret)
    expect(encryptSecret(key, secret, 'webhook:t:1')).not.toBe(sealed)
  })

  it('refuses another key, another context or an altered ciphertext', () => {
    const sealed = encryptSecret(key, 'whsec_abc', 'webhook:t:1')
    expect(() => decryptSecret(randomBytes(32), sealed, 'webhook:t:1')).toThrow(
      SecretDecryptionError,
    )
    expect(() => decryptSecret(key, sealed, 'webhook:t:2')).toThrow(SecretDecryptionError)
    const [v, iv, tag, body] = sealed.split('.') as [string, string, string, string]
    const flipped = Buffer.from(body, 'base64url')
    flipped[0] = (flipped[0] ?? 0) ^ 1
    const altered = [v, iv, tag, flipped.toString('base64url')].join('.')
    expect(() => decryptSecret(key, altered, 'webhook:t:1')).toThrow(SecretDecryptionError)
    expect(() => decryptSecret(key, 'garbage', 'webhook:t:1')).toThrow(SecretDecryptionError)
  })

  it('makes Standard Webhooks secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32)
    expect(generateWebhookSecret()).not.toBe(secret)
  })

  it('parses 32-byte keys in hex or base64 and refuses anything else', () => {
    const raw = randomBytes(32)
    expect(parseSecretsKey(raw.toString('hex'))).toEqual(raw)
    expect(parseSecretsKey(raw.toString('base64'))).toEqual(raw)
    expect(parseSecretsKey(raw.toString('base64url'))).toEqual(raw)
    expect(() => parseSecretsKey(randomBytes(16).toString('hex'))).toThrow(TypeError)
    expect(() => parseSecretsKey('not a key')).toThrow(TypeError)
  })

  it('derives the same development key from the same JWT secret, and another from another', () => {
    const a = deriveSecretsKey('a'.repeat(40))
    expect(a).toHaveLength(32)
    expect(deriveSecretsKey('a'.repeat(40))).toEqual(a)
    expect(deriveSecretsKey('b'.repeat(40))).not.toEqual(a)
  })
})
