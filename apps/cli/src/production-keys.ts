import { ConfigError } from '@weave/api'

/** Which keys a process found configured (explicitly: nothing is derived in production). */
export interface ConfiguredKeys {
  isProduction: boolean
  /** WEAVE_SECRETS_KEY: encrypts webhook signing secrets. */
  secretsKey: boolean
  /** WEAVE_AUDIT_SIGNING_KEY: signs audit anchors. */
  auditSigningKey: boolean
}

/**
 * With NODE_ENV=production, refuses to start without the keys a development setup derives from
 * its JWT secret: a production server would otherwise run without webhooks or audit anchors and
 * say so only in a warning. The JWT key itself is already required there (no development secret
 * is made in production).
 * @throws ConfigError naming every missing variable (exit status 2)
 */
export function requireProductionKeys(keys: ConfiguredKeys): void {
  if (!keys.isProduction) return
  const missing = [
    ...(keys.secretsKey ? [] : ['WEAVE_SECRETS_KEY (32 random bytes, hex or base64)']),
    ...(keys.auditSigningKey
      ? []
      : ['WEAVE_AUDIT_SIGNING_KEY (an Ed25519 private key: openssl genpkey -algorithm ed25519)']),
  ]
  if (missing.length === 0) return
  throw new ConfigError(
    `invalid environment\nNODE_ENV=production needs ${missing.join(' and ')}; nothing is derived in production`,
  )
}
