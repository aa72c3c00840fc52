import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'

const SECRET = 's'.repeat(32)
const ISSUER = 'https://idp.example.com'
const JWKS = { WEAVE_JWT_JWKS_URL: 'https://idp/jwks', WEAVE_JWT_ISSUER: ISSUER }

/** A public-key configuration (public keys need an issuer). */
function withPublicKey(pem: string, env: Record<string, string> = {}) {
  return { WEAVE_JWT_PUBLIC_KEY: pem, WEAVE_JWT_ISSUER: ISSUER, ...env }
}

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
      host: '127.0.0.1',
      databaseUrl: 'postgres://weave_runtime@127.0.0.1:5432/weave',
      migrateDatabaseUrl: 'postgres://postgres@127.0.0.1:5432/weave',
      isProduction: false,
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
      sse: { maxStreams: 1_000, maxStreamsPerTenant: 100, drainTimeoutMs: 30_000 },
      trustProxy: false,
      docs: true,
      metrics: { exposure: { kind: 'main' }, token: undefined, refreshMs: 15_000 },
      readinessCacheMs: 2_000,
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
    expect(configError({ ...JWKS, WEAVE_JWT_ALGORITHMS: 'RS256,HS256' })).toContain(
      'HS256 needs WEAVE_JWT_SECRET',
    )
  })

  it('defaults the algorithms per key kind', () => {
    expect(loadConfig(JWKS).jwt.algorithms).toEqual(['RS256', 'ES256', 'EdDSA'])
    expect(loadConfig(withPublicKey(publicPem('rsa'))).jwt.algorithms).toEqual(['RS256'])
    expect(loadConfig(withPublicKey(publicPem('ec'))).jwt.algorithms).toEqual(['ES256'])
    expect(loadConfig(withPublicKey(publicPem('ed25519'))).jwt.algorithms).toEqual(['EdDSA'])
    expect(loadConfig(withPublicKey(publicPem('ec', 'P-384'))).jwt.algorithms).toEqual(['ES384'])
  })

  it('refuses algorithms the public key cannot verify', () => {
    expect(
      configError(withPublicKey(publicPem('rsa'), { WEAVE_JWT_ALGORITHMS: 'ES256' })),
    ).toContain('ES256 cannot be used with this public key')
  })

  it('accepts a PEM flattened with literal \\n', () => {
    const flat = publicPem('ec').replaceAll('\n', '\\n')
    expect(loadConfig(withPublicKey(flat)).jwt.key.kind).toBe('public-key')
  })

  it('refuses a private key or garbage as the public key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    expect(configError({ WEAVE_JWT_PUBLIC_KEY: pem })).toContain('not a private key')
    expect(configError({ WEAVE_JWT_PUBLIC_KEY: 'not a key' })).toContain('PEM-encoded public key')
  })

  it('refuses a JWKS URL or a public key without WEAVE_JWT_ISSUER, naming the variable', () => {
    const jwks = configError({ WEAVE_JWT_JWKS_URL: 'https://idp/jwks' })
    expect(jwks).toMatch(/WEAVE_JWT_ISSUER/)
    expect(jwks).toContain('is required with WEAVE_JWT_JWKS_URL')
    const pem = configError({ WEAVE_JWT_PUBLIC_KEY: publicPem('ec') })
    expect(pem).toContain('is required with WEAVE_JWT_PUBLIC_KEY')
    expect(loadConfig(JWKS).jwt.issuer).toBe(ISSUER)
  })

  it('reads WEAVE_TRUST_PROXY as true/false, a hop count or a list of addresses and ranges', () => {
    const trust = (value: string) =>
      loadConfig({ WEAVE_JWT_SECRET: SECRET, WEAVE_TRUST_PROXY: value })
    expect(trust('true').trustProxy).toBe(true)
    expect(trust('false').trustProxy).toBe(false)
    expect(trust('2').trustProxy).toBe(2)
    expect(trust('10.0.0.0/8, 192.168.1.7,::1, fd00::/8, loopback').trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
      'loopback',
    ])
    for (const bad of ['yes', '10.0.0.0/33', 'proxy.internal', '999']) {
      expect(configError({ WEAVE_JWT_SECRET: SECRET, WEAVE_TRUST_PROXY: bad })).toContain(
        'WEAVE_TRUST_PROXY',
      )
    }
  })

  it('serves metrics on PORT by default, on a port of their own, or not at all', () => {
    const metrics = (env: Record<string, string>) =>
      loadConfig({ WEAVE_JWT_SECRET: SECRET, HOST: '10.1.2.3', ...env }).metrics
    expect(metrics({ WEAVE_API_METRICS_PORT: '9464' }).exposure).toEqual({
      kind: 'port',
      port: 9464,
      host: '10.1.2.3',
    })
    expect(
      metrics({ WEAVE_API_METRICS_PORT: '9464', WEAVE_API_METRICS_HOST: '127.0.0.1' }).exposure,
    ).toMatchObject({ host: '127.0.0.1' })
    expect(metrics({ WEAVE_API_METRICS: 'off' }).exposure).toEqual({ kind: 'off' })
    expect(
      configError({
        WEAVE_JWT_SECRET: SECRET,
        WEAVE_API_METRICS: 'off',
        WEAVE_API_METRICS_PORT: '9464',
      }),
    ).toContain('WEAVE_API_METRICS_PORT')
    expect(
      configError({ WEAVE_JWT_SECRET: SECRET, PORT: '9464', WEAVE_API_METRICS_PORT: '9464' }),
    ).toContain('must differ from PORT')
  })

  it('takes a metrics token of at least 32 characters and never prints a rejected one', () => {
    const token = 'm'.repeat(32)
    expect(loadConfig({ WEAVE_JWT_SECRET: SECRET, WEAVE_METRICS_TOKEN: token }).metrics.token).toBe(
      token,
    )
    const message = configError({
      WEAVE_JWT_SECRET: SECRET,
      WEAVE_METRICS_TOKEN: 'hunter2-metrics',
    })
    expect(message).toContain('WEAVE_METRICS_TOKEN')
    expect(message).not.toContain('hunter2')
  })

  it('listens on 127.0.0.1 by default, on 0.0.0.0 in production, and on HOST when set', () => {
    const host = (env: Record<string, string>) =>
      loadConfig({ WEAVE_JWT_SECRET: SECRET, ...env }).host
    expect(host({})).toBe('127.0.0.1')
    expect(host({ NODE_ENV: 'development' })).toBe('127.0.0.1')
    expect(host({ NODE_ENV: 'production' })).toBe('0.0.0.0')
    expect(host({ HOST: '10.1.2.3' })).toBe('10.1.2.3')
    expect(host({ NODE_ENV: 'production', HOST: '127.0.0.1' })).toBe('127.0.0.1')
    expect(host({ HOST: '' })).toBe('127.0.0.1')
    // A metrics port of its own follows the same default.
    const metricsHost = (env: Record<string, string>) =>
      loadConfig({ WEAVE_JWT_SECRET: SECRET, WEAVE_API_METRICS_PORT: '9464', ...env }).metrics
        .exposure
    expect(metricsHost({})).toMatchObject({ host: '127.0.0.1' })
    expect(metricsHost({ NODE_ENV: 'production' })).toMatchObject({ host: '0.0.0.0' })
  })

  it('serves the docs by default outside production and only when asked in production', () => {
    const docs = (env: Record<string, string>) =>
      loadConfig({ WEAVE_JWT_SECRET: SECRET, ...env }).docs
    expect(docs({})).toBe(true)
    expect(docs({ WEAVE_DOCS: 'off' })).toBe(false)
    expect(docs({ NODE_ENV: 'production' })).toBe(false)
    expect(docs({ NODE_ENV: 'production', WEAVE_DOCS: 'on' })).toBe(true)
    expect(configError({ WEAVE_JWT_SECRET: SECRET, WEAVE_DOCS: 'maybe' })).toContain('WEAVE_DOCS')
  })

  it('runs as the runtime login of WEAVE_DATABASE_URL and migrates as WEAVE_MIGRATE_DATABASE_URL', () => {
    const runtime = 'postgres://weave_api:pw@db.internal:5432/orders'
    const urls = (env: Record<string, string>) => {
      const config = loadConfig({ WEAVE_JWT_SECRET: SECRET, ...env })
      return { runtime: config.databaseUrl, migrate: config.migrateDatabaseUrl }
    }
    expect(urls({ WEAVE_DATABASE_URL: runtime })).toEqual({
      runtime,
      migrate: 'postgres://postgres@db.internal:5432/orders',
    })
    const legacy = 'postgres://postgres@127.0.0.1:5432/weave_e2e'
    expect(urls({ DATABASE_URL: legacy })).toEqual({ runtime: legacy, migrate: legacy })
    expect(configError({ WEAVE_JWT_SECRET: SECRET, WEAVE_MIGRATE_DATABASE_URL: 'x' })).toContain(
      'WEAVE_MIGRATE_DATABASE_URL',
    )
    expect(loadConfig({ WEAVE_JWT_SECRET: SECRET, NODE_ENV: 'production' }).isProduction).toBe(true)
  })
})
