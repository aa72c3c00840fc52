import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const KEY_VARIABLES = ['WEAVE_JWT_SECRET', 'WEAVE_JWT_PUBLIC_KEY', 'WEAVE_JWT_JWKS_URL'] as const

/** Where a development secret is kept, relative to the working directory (git-ignored). */
export const DEV_SECRET_FILE = join('.weave', 'dev-jwt-secret')

/**
 * Lets `npm start` and `weave token` work on a fresh clone: when no JWT key is configured and
 * NODE_ENV is not "production", both use one random HS256 secret kept in .weave/dev-jwt-secret
 * (created with mode 0600 on first use). In production a key must be configured explicitly.
 * Returns the environment to load the configuration from, and whether the file's secret is used.
 */
export function withDevSecret(env: NodeJS.ProcessEnv): {
  env: NodeJS.ProcessEnv
  usesDevSecret: boolean
} {
  if (env.NODE_ENV === 'production' || KEY_VARIABLES.some((k) => env[k])) {
    return { env, usesDevSecret: false }
  }
  let secret: string
  try {
    secret = readFileSync(DEV_SECRET_FILE, 'utf8').trim()
  } catch {
    secret = randomBytes(48).toString('base64url')
    mkdirSync('.weave', { recursive: true, mode: 0o700 })
    writeFileSync(DEV_SECRET_FILE, `${secret}\n`, { mode: 0o600, flag: 'wx' })
  }
  return { env: { ...env, WEAVE_JWT_SECRET: secret }, usesDevSecret: true }
}
