import { randomBytes } from 'node:crypto'
import { deriveSecretsKey } from '@weave/db'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'
import { SECRET } from './support.js'

describe('WEAVE_SECRETS_KEY', () => {
  it('takes 32 bytes in hex or base64', () => {
    const key = randomBytes(32)
    for (const text of [key.toString('hex'), key.toString('base64')]) {
      const config = loadConfig({ WEAVE_JWT_SECRET: SECRET, WEAVE_SECRETS_KEY: text })
      expect(config.secretsKey).toEqual(key)
    }
  })

  it('refuses a key of another length, naming the variable', () => {
    expect(() =>
      loadConfig({ WEAVE_JWT_SECRET: SECRET, WEAVE_SECRETS_KEY: randomBytes(16).toString('hex') }),
    ).toThrow(ConfigError)
    expect(() => loadConfig({ WEAVE_JWT_SECRET: SECRET, WEAVE_SECRETS_KEY: 'short' })).toThrow(
      /WEAVE_SECRETS_KEY/,
    )
  })

  it('derives a development key from the JWT secret, but not in production', () => {
    expect(loadConfig({ WEAVE_JWT_SECRET: SECRET }).secretsKey).toEqual(deriveSecretsKey(SECRET))
    const production = loadConfig({ WEAVE_JWT_SECRET: SECRET, NODE_ENV: 'production' })
    expect(production.secretsKey).toBeUndefined()
    const jwks = { WEAVE_JWT_JWKS_URL: 'https://idp/jwks', WEAVE_JWT_ISSUER: 'https://idp' }
    expect(loadConfig(jwks).secretsKey).toBeUndefined()
  })
})
