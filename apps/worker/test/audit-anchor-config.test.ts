import { createAuditSigner, deriveAuditSigningKey } from '@weave/db'
import { loadConfig } from '@weave/api'
import { describe, expect, it } from 'vitest'
import { WorkerConfigError, loadWorkerConfig } from '../src/config.js'

const JWT_SECRET = 'a-development-jwt-secret-of-32-bytes-or-more'
const SEED = 'ab'.repeat(32)

const keyIdOf = (config: {
  auditAnchors?: { signingKey: Parameters<typeof createAuditSigner>[0] }
}) =>
  config.auditAnchors ? createAuditSigner(config.auditAnchors.signingKey).publicKey.keyId : null

describe('the audit anchor configuration', () => {
  it('anchors hourly by default, with the key set, and sends to the webhook when given', () => {
    const config = loadWorkerConfig({
      WEAVE_AUDIT_SIGNING_KEY: SEED,
      WEAVE_AUDIT_ANCHOR_WEBHOOK_URL: 'https://anchors.example.com/in',
    })
    expect(config.auditAnchors).toMatchObject({
      intervalMs: 3_600_000,
      webhookUrl: 'https://anchors.example.com/in',
    })
    expect(
      loadWorkerConfig({ WEAVE_AUDIT_SIGNING_KEY: SEED, WEAVE_AUDIT_ANCHOR_INTERVAL_MS: '0' })
        .auditAnchors?.intervalMs,
    ).toBe(0)
  })

  it('signs with the same key as the API: set, or derived from the development JWT secret', () => {
    const api = loadConfig({ WEAVE_JWT_SECRET: JWT_SECRET })
    const derived = createAuditSigner(deriveAuditSigningKey(JWT_SECRET)).publicKey.keyId
    expect(keyIdOf(loadWorkerConfig({ WEAVE_JWT_SECRET: JWT_SECRET }))).toBe(derived)
    expect(createAuditSigner(api.auditSigningKey!).publicKey.keyId).toBe(derived)
    const set = loadWorkerConfig({ WEAVE_JWT_SECRET: JWT_SECRET, WEAVE_AUDIT_SIGNING_KEY: SEED })
    expect(keyIdOf(set)).not.toBe(derived)
  })

  it('derives nothing in production, and refuses a key that is not Ed25519 without echoing it', () => {
    const production = loadWorkerConfig({ WEAVE_JWT_SECRET: JWT_SECRET, NODE_ENV: 'production' })
    expect(production.auditAnchors).toBeUndefined()
    const secret = 'not-a-key-but-secret-text'
    let message = ''
    try {
      loadWorkerConfig({ WEAVE_AUDIT_SIGNING_KEY: secret })
    } catch (err) {
      expect(err).toBeInstanceOf(WorkerConfigError)
      message = (err as Error).message
    }
    expect(message).toMatch(/WEAVE_AUDIT_SIGNING_KEY/)
    expect(message).not.toContain(secret)
  })
})
