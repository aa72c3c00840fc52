import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'

const SECRET = 's'.repeat(32)

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigError')
}

function publicPem(type: 'rsa' | 'ec' | 'ed25519', curve?: string): string {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : type === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: curve ?? 'P-256' })
        : generateKeyPairSync('ed25519')
  return pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ WEAVE_JWT_SECRET: SECRET })
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/weave',
      redisUrl: 'redis://127.0.0.1:6379',
      logLevel: 'info',
      bodyLimitBytes: 1024 * 1024,
      httpAllow: [],
      handlers: [],
      workerConcurrency: 8,
      queuePrefix: 'weave',
      rateLimitPerMinute: 600,
      jwt: {
        key: { kind: 'secret', secret: SECRET },
        audience: 'weave',
        algorithms: ['HS256'],
        tenantClaim: 'tid',
        clockSkewSeconds: 30,
      },
    })
    expect(config.jwt.issuer).toBeUndefined()
  })

  it('reads lists, numbers and optional values', () => {
    const config = loadConfig({
      WEAVE_JWT_SECRET: SECRET,
      PORT: '8080',
      WEAVE_HTTP_ALLOW: 'api.example.com, hooks.example.com,',
      WEAVE_HANDLERS: './handlers/a.js',
      WEAVE_JWT_ISSUER: 'https://idp.example.com',
      WEAVE_LLM_BASE_URL: 'https://llm.example.com/v1',
    })
    expect(config.port).toBe(8080)
    expect(config.httpAllow).toEqual(['api.example.com', 'hooks.example.com'])
    expect(config.handlers).toEqual(['./handlers/a.js'])
    expect(config.jwt.issuer).toBe('https://idp.example.com')
    expect(config.llm.baseUrl).toBe('https://llm.example.com/v1')
  })

  it('treats empty variables as unset', () => {
    expect(loadConfig({ WEAVE_JWT_SECRET: SECRET, PORT: '', WEAVE_JWT_JWKS_URL: ' ' }).port).toBe(
      3000,
    )
  })

  it('requires a JWT key source', () => {
    expect(configError({})).toMatch(/set exactly one of WEAVE_JWT_SECRET/)
  })

  it('refuses two JWT key sources', () => {
    const message = configError({
      WEAVE_JWT_SECRET: SECRET,
      WEAVE_JWT_JWKS_URL: 'https://idp/jwks',
    })
    expect(message).toContain('WEAVE_JWT_SECRET and WEAVE_JWT_JWKS_URL are both set')
  })

  it('refuses a secret shorter than 32 bytes', () => {
    expect(configError({ WEAVE_JWT_SECRET: 'short' })).toMatch(
      /at least 32 bytes[\s\S]*WEAVE_JWT_SECRET/,
    )
  })

  it('names every invalid variable', () => {
    const message = configError({
      WEAVE_JWT_SECRET: SECRET,
      PORT: 'eighty',
      DATABASE_URL: 'mysql://db',
      LOG_LEVEL: 'loud',
    })
    expect(message).toContain('PORT')
    expect(message).toContain('DATABASE_URL')
    expect(message).toContain('LOG_LEVEL')
  })

  it('never prints the secret it rejects', () => {
    expect(configError({ WEAVE_JWT_SECRET: 'hunter2-too-short' })).not.toContain('hunter2')
  })

  it('refuses none and HMAC algorithms for a public key, and asymmetric ones for a secret', () => {
    expect(configError({ WEAVE_JWT_SECRET: SECRET, WEAVE_JWT_ALGORITHMS: 'none' })).toContain(
      'WEAVE_JWT_ALGORITHMS',
    )
    expect(configError({ WEAVE_JWT_SECRET: SECRET, WEAVE_JWT_ALGORITHMS: 'RS256' })).toContain(
      'cannot be used with WEAVE_JWT_SECRET',
    )
    expect(
      configError({ WEAVE_JWT_JWKS_URL: 'https://idp/jwks', WEAVE_JWT_ALGORITHMS: 'RS256,HS256' }),
    ).toContain('HS256 needs WEAVE_JWT_SECRET')
  })

  it('defaults the algorithms per key kind', () => {
    expect(loadConfig({ WEAVE_JWT_JWKS_URL: 'https://idp/jwks' }).jwt.algorithms).toEqual([
      'RS256',
      'ES256',
      'EdDSA',
    ])
    expect(loadConfig({ WEAVE_JWT_PUBLIC_KEY: publicPem('rsa') }).jwt.algorithms).toEqual(['RS256'])
    expect(loadConfig({ WEAVE_JWT_PUBLIC_KEY: publicPem('ec') }).jwt.algorithms).toEqual(['ES256'])
    expect(loadConfig({ WEAVE_JWT_PUBLIC_KEY: publicPem('ed25519') }).jwt.algorithms).toEqual([
      'EdDSA',
    ])
    expect(loadConfig({ WEAVE_JWT_PUBLIC_KEY: publicPem('ec', 'P-384') }).jwt.algorithms).toEqual([
      'ES384',
    ])
  })

  it('refuses algorithms the public key cannot verify', () => {
    expect(
      configError({ WEAVE_JWT_PUBLIC_KEY: publicPem('rsa'), WEAVE_JWT_ALGORITHMS: 'ES256' }),
    ).toContain('ES256 cannot be used with this public key')
  })

  it('accepts a PEM flattened with literal \\n', () => {
    const flat = publicPem('ec').replaceAll('\n', '\\n')
    expect(loadConfig({ WEAVE_JWT_PUBLIC_KEY: flat }).jwt.key.kind).toBe('public-key')
  })

  it('refuses a private key or garbage as the public key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    expect(configError({ WEAVE_JWT_PUBLIC_KEY: pem })).toContain('not a private key')
    expect(configError({ WEAVE_JWT_PUBLIC_KEY: 'not a key' })).toContain('PEM-encoded public key')
  })
})
