import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  SignJWT,
  UnsecuredJWT,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type CryptoKey,
  type JWTPayload,
} from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { createJwtVerifier, type JwtVerifierOptions } from '../src/auth/jwt-verifier.js'
import { ServiceUnavailableError, UnauthorizedError } from '../src/http/app-errors.js'
import { problemResponses } from '../src/http/problem-responses.js'
import { SECRET, captureLog, testConfig } from './support.js'

const secretKey = new TextEncoder().encode(SECRET)
// Public keys and key sets are only accepted pinned to an issuer.
const ISSUER = 'https://idp.test'

function claims(overrides: JWTPayload = {}): JWTPayload {
  return { tid: 'acme', sub: 'user-1', scope: 'runs:read runs:write', aud: 'weave', ...overrides }
}

async function sign(
  payload: JWTPayload,
  key: CryptoKey | Uint8Array = secretKey,
  header: { alg: string; kid?: string } = { alg: 'HS256' },
  expiresIn: string | number = '5m',
): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader(header)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key)
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof Error)) throw new Error('expected a rejection')
  return error
}

describe('the JWT verifier with an HS256 secret', () => {
  const verifier = createJwtVerifier(testConfig().jwt)

  it('turns a valid token into a principal', async () => {
    const token = await mintDevToken({
      secret: SECRET,
      tenant: 'acme',
      subject: 'alice',
      scopes: ['runs:read', 'graphs:write'],
      audience: 'weave',
      expiresIn: '1h',
    })
    const principal = await verifier.verify(token)
    expect(principal.tenant).toBe('acme')
    expect(principal.subject).toBe('alice')
    expect([...principal.scopes].sort()).toEqual(['graphs:write', 'runs:read'])
    expect(principal.tokenId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('refuses an unsigned token (alg: none)', async () => {
    const token = new UnsecuredJWT(claims()).setIssuedAt().setExpirationTime('5m').encode()
    const error = await rejection(verifier.verify(token))
    expect(error).toBeInstanceOf(UnauthorizedError)
  })

  it('refuses a token signed with another secret', async () => {
    const other = new TextEncoder().encode('another-secret-of-at-least-32-bytes!!')
    const error = await rejection(verifier.verify(await sign(claims(), other)))
    expect(error).toBeInstanceOf(UnauthorizedError)
    expect(error.message).toBe('The token signature is invalid.')
  })

  it('refuses an expired token', async () => {
    const expired = Math.floor(Date.now() / 1000) - 120
    const error = await rejection(
      verifier.verify(await sign(claims(), secretKey, { alg: 'HS256' }, expired)),
    )
    expect(error.message).toBe('The token has expired.')
  })

  it('refuses a token whose exp is past any time a Date can hold', async () => {
    const token = await sign(claims(), secretKey, { alg: 'HS256' }, 9e12)
    const error = await rejection(verifier.verify(token))
    expect(error).toBeInstanceOf(UnauthorizedError)
    expect(error.message).toContain('"exp"')
    const farButValid = await sign(claims(), secretKey, { alg: 'HS256' }, 8e12)
    await expect(verifier.verify(farButValid)).resolves.toMatchObject({ tenant: 'acme' })
  })

  it('accepts a token that expired within the clock skew', async () => {
    const justExpired = Math.floor(Date.now() / 1000) - 10
    const token = await sign(claims(), secretKey, { alg: 'HS256' }, justExpired)
    await expect(verifier.verify(token)).resolves.toMatchObject({ tenant: 'acme' })
  })

  it('refuses a token for another audience', async () => {
    const error = await rejection(verifier.verify(await sign(claims({ aud: 'billing' }))))
    expect(error.message).toBe('The token\'s "aud" claim is not accepted.')
  })

  it('refuses a token from another issuer when an issuer is configured', async () => {
    const strict = createJwtVerifier(testConfig({ WEAVE_JWT_ISSUER: 'https://idp.test' }).jwt)
    const error = await rejection(strict.verify(await sign(claims({ iss: 'https://evil.test' }))))
    expect(error.message).toBe('The token\'s "iss" claim is not accepted.')
    await expect(
      strict.verify(await sign(claims({ iss: 'https://idp.test' }))),
    ).resolves.toBeDefined()
  })

  it('refuses a token without a tenant claim', async () => {
    const error = await rejection(verifier.verify(await sign(claims({ tid: undefined }))))
    expect(error.message).toBe('The token has no "tid" claim.')
  })

  it('refuses a tenant claim that is not a tenant id', async () => {
    for (const tid of ['', 'a b', 'x'.repeat(101), 42, ['acme']]) {
      const error = await rejection(verifier.verify(await sign(claims({ tid }))))
      expect(error.message).toBe('The token\'s "tid" claim is not a valid tenant id.')
    }
  })

  it("refuses a subject Postgres could not store as an audit event's actor", async () => {
    for (const sub of ['', 'x'.repeat(1000), 'bob\u0000', 'bob\ud800', '\udc00bob', 42]) {
      const error = await rejection(verifier.verify(await sign(claims({ sub: sub as string }))))
      expect(error.message).toBe('The token\'s "sub" claim is not a valid subject.')
    }
    const principal = await verifier.verify(await sign(claims({ sub: 'zoë 😀' })))
    expect(principal.subject).toBe('zoë 😀')
  })

  it('reads the tenant from the configured claim', async () => {
    const custom = createJwtVerifier(testConfig({ WEAVE_JWT_TENANT_CLAIM: 'org' }).jwt)
    const principal = await custom.verify(await sign(claims({ tid: undefined, org: 'globex' })))
    expect(principal.tenant).toBe('globex')
  })

  it('refuses a token without exp', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(secretKey)
    const error = await rejection(verifier.verify(token))
    expect(error.message).toBe('The token has no "exp" claim.')
  })

  it('refuses garbage', async () => {
    const error = await rejection(verifier.verify('not.a.jwt'))
    expect(error).toBeInstanceOf(UnauthorizedError)
  })
})

describe('the JWT verifier with an RS256 public key', () => {
  let privateKey: CryptoKey
  let publicPem: string

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true })
    privateKey = pair.privateKey
    publicPem = await exportSPKI(pair.publicKey)
  })

  it('accepts an RS256 token signed with the matching private key', async () => {
    const verifier = createJwtVerifier(
      testConfig({
        WEAVE_JWT_SECRET: '',
        WEAVE_JWT_PUBLIC_KEY: publicPem,
        WEAVE_JWT_ISSUER: ISSUER,
      }).jwt,
    )
    const token = await sign(claims({ iss: ISSUER }), privateKey, { alg: 'RS256' })
    const principal = await verifier.verify(token)
    expect(principal.subject).toBe('user-1')
  })

  it('refuses an HS256 token whose HMAC key is the public key PEM (algorithm confusion)', async () => {
    const config = testConfig({
      WEAVE_JWT_SECRET: '',
      WEAVE_JWT_PUBLIC_KEY: publicPem,
      WEAVE_JWT_ISSUER: ISSUER,
    })
    expect(config.jwt.algorithms).toEqual(['RS256'])
    const verifier = createJwtVerifier(config.jwt)
    const forged = await sign(claims({ iss: ISSUER }), new TextEncoder().encode(publicPem), {
      alg: 'HS256',
    })
    const error = await rejection(verifier.verify(forged))
    expect(error.message).toBe("The token's algorithm is not accepted.")
  })

  it('refuses a token from another issuer signed with the configured key', async () => {
    const verifier = createJwtVerifier(
      testConfig({
        WEAVE_JWT_SECRET: '',
        WEAVE_JWT_PUBLIC_KEY: publicPem,
        WEAVE_JWT_ISSUER: ISSUER,
      }).jwt,
    )
    for (const iss of [undefined, 'https://other-app.idp.test']) {
      const error = await rejection(
        verifier.verify(await sign(claims({ iss }), privateKey, { alg: 'RS256' })),
      )
      expect(error).toBeInstanceOf(UnauthorizedError)
    }
  })

  it('cannot be built without an issuer, even bypassing loadConfig', () => {
    const jwt = {
      ...testConfig({
        WEAVE_JWT_SECRET: '',
        WEAVE_JWT_PUBLIC_KEY: publicPem,
        WEAVE_JWT_ISSUER: ISSUER,
      }).jwt,
      issuer: undefined,
    }
    expect(() => createJwtVerifier(jwt)).toThrow(/issuer/)
  })

  it('refuses an RS256 token when configured with a secret', async () => {
    const verifier = createJwtVerifier(testConfig().jwt)
    const error = await rejection(
      verifier.verify(await sign(claims(), privateKey, { alg: 'RS256' })),
    )
    expect(error.message).toBe("The token's algorithm is not accepted.")
  })
})

describe('the JWT verifier with a JWKS URL', () => {
  let server: Server
  let url: string
  let signingKey: CryptoKey
  let jwksStatus = 200
  let fetches = 0

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true })
    signingKey = pair.privateKey
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' }
    server = createServer((_request, response) => {
      fetches += 1
      response.writeHead(jwksStatus, { 'content-type': 'application/json' })
      response.end(jwksStatus === 200 ? JSON.stringify({ keys: [jwk] }) : '{"error":"down"}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`
  })

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })

  function jwksConfig() {
    return testConfig({ WEAVE_JWT_SECRET: '', WEAVE_JWT_JWKS_URL: url, WEAVE_JWT_ISSUER: ISSUER })
  }

  function jwksVerifier(keySet: JwtVerifierOptions['keySet'] = {}) {
    return createJwtVerifier(jwksConfig().jwt, { keySet })
  }

  /** A clock the test moves: cooldowns pass when the test says so, never by waiting. */
  function manualClock() {
    let now = Date.now()
    return { now: () => now, advance: (ms: number) => void (now += ms) }
  }

  function validToken(): Promise<string> {
    return sign(claims({ iss: ISSUER }), signingKey, { alg: 'ES256', kid: 'key-1' })
  }

  /** Well-formed tokens signed by a key nobody published, each naming a random `kid`. */
  async function forgedTokens(count: number): Promise<string[]> {
    const stranger = await generateKeyPair('ES256')
    return Promise.all(
      Array.from({ length: count }, () =>
        sign(claims({ iss: ISSUER }), stranger.privateKey, {
          alg: 'ES256',
          kid: randomBytes(8).toString('hex'),
        }),
      ),
    )
  }

  it('accepts a token signed by a key of the set', async () => {
    await expect(jwksVerifier().verify(await validToken())).resolves.toMatchObject({
      tenant: 'acme',
    })
  })

  it('refuses a token whose key is not in the set', async () => {
    const [token] = await forgedTokens(1)
    const error = await rejection(jwksVerifier().verify(token!))
    expect(error).toBeInstanceOf(UnauthorizedError)
  })

  it('answers 503, not 401, when the key set cannot be fetched', async () => {
    jwksStatus = 500
    try {
      const error = await rejection(jwksVerifier().verify(await validToken()))
      expect(error).toBeInstanceOf(ServiceUnavailableError)
      expect((error as ServiceUnavailableError).headers['retry-after']).toMatch(/^\d+$/)
    } finally {
      jwksStatus = 200
    }
  })

  it('fetches a failing key set at most once per retry window, whatever kids the tokens name', async () => {
    jwksStatus = 500
    try {
      const clock = manualClock()
      const verifier = jwksVerifier({ now: clock.now, retryMs: 5_000 })
      const tokens = await forgedTokens(100)
      const before = fetches
      // Half at once, half one after another: neither concurrency nor order adds a fetch.
      const errors = await Promise.all(
        tokens.slice(0, 50).map((t) => rejection(verifier.verify(t))),
      )
      for (const token of tokens.slice(50)) errors.push(await rejection(verifier.verify(token)))
      expect(fetches - before).toBe(1)
      // No key set was ever obtained: the outage is the server's, not the tokens' fault.
      expect(errors.every((error) => error instanceof ServiceUnavailableError)).toBe(true)

      clock.advance(5_000)
      await rejection(verifier.verify(tokens[0]!))
      expect(fetches - before).toBe(2)
    } finally {
      jwksStatus = 200
    }
  })

  it('answers 401 to unknown kids during an outage once a key set was fetched, and still accepts known keys', async () => {
    const clock = manualClock()
    const verifier = jwksVerifier({ now: clock.now, cooldownMs: 30_000, retryMs: 5_000 })
    const before = fetches
    await expect(verifier.verify(await validToken())).resolves.toMatchObject({ tenant: 'acme' })
    jwksStatus = 500
    try {
      // Past the cooldown an unknown kid may look for a rotated key: one fetch, which fails.
      clock.advance(30_000)
      const errors = await Promise.all(
        (await forgedTokens(100)).map((token) => rejection(verifier.verify(token))),
      )
      expect(fetches - before).toBe(2)
      for (const error of errors) {
        expect(error).toBeInstanceOf(UnauthorizedError)
        expect(error.message).toBe('No known key matches the token.')
      }
      await expect(verifier.verify(await validToken())).resolves.toMatchObject({ tenant: 'acme' })
      expect(fetches - before).toBe(2)

      // Over HTTP: 401 with error="invalid_token", no 503, no fetch.
      const app = buildApp({
        config: jwksConfig(),
        log: captureLog().log,
        verifier,
        routes: [whoami],
      })
      const [forged] = await forgedTokens(1)
      const response = await app.inject({
        method: 'GET',
        url: '/v1/whoami',
        headers: { authorization: `Bearer ${forged}` },
      })
      expect(response.statusCode).toBe(401)
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"')
      expect(fetches - before).toBe(2)
    } finally {
      jwksStatus = 200
    }
  })
})

const whoami: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/whoami',
    {
      onRequest: app.authenticate,
      schema: {
        operationId: 'whoami',
        summary: 'Any valid token',
        tags: ['runs'],
        response: { 200: z.object({ subject: z.string() }), ...problemResponses(401) },
      },
    },
    async (request) => ({ subject: request.principal.subject }),
  )
}

describe('the auth hooks', () => {
  const probe: FastifyPluginAsyncZod = async (app) => {
    app.post(
      '/v1/probe',
      {
        onRequest: app.requireScope('runs:write'),
        schema: {
          operationId: 'probe',
          summary: 'Probe',
          tags: ['runs'],
          body: z.strictObject({ name: z.string() }),
          response: {
            200: z.object({ tenant: z.string(), subject: z.string() }),
            ...problemResponses(400, 401, 403),
          },
        },
      },
      async (request) => ({ tenant: request.tenant, subject: request.principal.subject }),
    )
    app.get(
      '/v1/whoami',
      {
        onRequest: app.authenticate,
        schema: {
          operationId: 'whoami',
          summary: 'Any valid token',
          tags: ['runs'],
          response: { 200: z.object({ subject: z.string() }), ...problemResponses(401) },
        },
      },
      async (request) => ({ subject: request.principal.subject }),
    )
    app.get(
      '/v1/unguarded',
      { schema: { operationId: 'unguarded', summary: 'Forgot its auth hook', tags: ['runs'] } },
      async (request) => ({ tenant: request.tenant }),
    )
  }

  function appWithProbe(log = captureLog().log) {
    return buildApp({ config: testConfig(), log, routes: [probe] })
  }

  it('lets a token with the scope through, with its tenant', async () => {
    const app = appWithProbe()
    const token = await sign(claims())
    const response = await app.inject({
      method: 'POST',
      url: '/v1/probe',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'x' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ tenant: 'acme', subject: 'user-1' })
  })

  it('lets any valid token through authenticate, whatever its scopes', async () => {
    const app = appWithProbe()
    const token = await sign(claims({ scope: undefined }))
    const response = await app.inject({
      method: 'GET',
      url: '/v1/whoami',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ subject: 'user-1' })
    expect((await app.inject({ method: 'GET', url: '/v1/whoami' })).statusCode).toBe(401)
  })

  it('answers 401 with a bare Bearer challenge when no token is sent', async () => {
    const response = await appWithProbe().inject({ method: 'POST', url: '/v1/probe', payload: {} })
    expect(response.statusCode).toBe(401)
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(response.headers['www-authenticate']).toBe('Bearer realm="weave"')
    expect(response.json()).toMatchObject({ type: '/problems/unauthorized', status: 401 })
  })

  it('answers 401 with invalid_token and a description for a bad token', async () => {
    const response = await appWithProbe().inject({
      method: 'POST',
      url: '/v1/probe',
      headers: { authorization: `Bearer ${await sign(claims({ aud: 'other' }))}` },
      payload: { name: 'x' },
    })
    expect(response.statusCode).toBe(401)
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="weave", error="invalid_token", error_description="The token\'s aud claim is not accepted."',
    )
  })

  it('answers 401 without an error code for another scheme than Bearer (RFC 6750 §3)', async () => {
    const response = await appWithProbe().inject({
      method: 'POST',
      url: '/v1/probe',
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
      payload: { name: 'x' },
    })
    expect(response.statusCode).toBe(401)
    expect(response.headers['www-authenticate']).toBe('Bearer realm="weave"')
    expect(response.json().detail).toContain('only bearer tokens')
  })

  it.each(['Bearer', 'Bearer ', 'Bearer a b', 'bearer\t'])(
    'answers 401 with invalid_request for a malformed bearer header %j',
    async (authorization) => {
      const response = await appWithProbe().inject({
        method: 'POST',
        url: '/v1/probe',
        headers: { authorization },
        payload: { name: 'x' },
      })
      expect(response.statusCode).toBe(401)
      expect(response.headers['www-authenticate']).toContain('error="invalid_request"')
    },
  )

  it('answers 403 with insufficient_scope when the scope is missing', async () => {
    const response = await appWithProbe().inject({
      method: 'POST',
      url: '/v1/probe',
      headers: { authorization: `Bearer ${await sign(claims({ scope: 'runs:read' }))}` },
      payload: { name: 'x' },
    })
    expect(response.statusCode).toBe(403)
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="weave", error="insufficient_scope", scope="runs:write"',
    )
    expect(response.json()).toMatchObject({ type: '/problems/forbidden', status: 403 })
  })

  it('authenticates before validating the body', async () => {
    const response = await appWithProbe().inject({
      method: 'POST',
      url: '/v1/probe',
      payload: { unknown: true },
    })
    expect(response.statusCode).toBe(401)
  })

  it('rate limits a caller before verifying its token', async () => {
    const app = buildApp({
      config: testConfig({ WEAVE_RATE_LIMIT_PER_MINUTE: '1' }),
      log: captureLog().log,
      routes: [probe],
    })
    const forged = { method: 'POST', url: '/v1/probe', headers: { authorization: 'Bearer x.y.z' } }
    expect((await app.inject(forged)).statusCode).toBe(401)
    expect((await app.inject(forged)).statusCode).toBe(429)
  })

  it('fails closed when a route reads the tenant without an auth hook', async () => {
    const response = await appWithProbe().inject({
      method: 'GET',
      url: '/v1/unguarded',
      headers: { authorization: `Bearer ${await sign(claims())}` },
    })
    expect(response.statusCode).toBe(401)
  })

  it('never writes the token to the log', async () => {
    const capture = captureLog()
    const token = await sign(claims({ scope: 'runs:read' }))
    const app = buildApp({ config: testConfig(), log: capture.log, routes: [probe] })
    await app.inject({
      method: 'POST',
      url: '/v1/probe',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'x' },
    })
    await app.inject({ method: 'POST', url: '/v1/approval-hooks/hook-token-0123456789' })
    app.log.info({ headers: { authorization: `Bearer ${token}` }, token }, 'careless')
    const output = capture.lines().join('\n')
    expect(output).toContain('careless')
    expect(output).not.toContain(token.split('.')[2])
    expect(output).toContain('/v1/approval-hooks/[redacted]')
    expect(output).not.toContain('hook-token-0123456789')
  })
})

describe('the JWT verifier remembering verified tokens', () => {
  it('still refuses a token once it has expired, though it was verified before', async () => {
    let clock = Date.now()
    const verifier = createJwtVerifier(testConfig().jwt, { now: () => clock })
    const exp = Math.floor(clock / 1000) + 20
    const token = await sign(claims(), secretKey, { alg: 'HS256' }, exp)
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-1' })
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-1' })
    // Past its exp and the clock skew (30 s by default).
    clock = exp * 1000 + 31_000
    const error = await rejection(verifier.verify(token))
    expect(error.message).toBe('The token has expired.')
  })

  it('refuses a forged signature on the claims of a token it verified', async () => {
    const verifier = createJwtVerifier(testConfig().jwt)
    const token = await sign(claims())
    await verifier.verify(token)
    const [header, payload] = token.split('.')
    const forged = `${header}.${payload}.${Buffer.from('x'.repeat(32)).toString('base64url')}`
    const error = await rejection(verifier.verify(forged))
    expect(error.message).toBe('The token signature is invalid.')
  })

  it('gives each request its own copy of the principal', async () => {
    const verifier = createJwtVerifier(testConfig().jwt)
    const token = await sign(claims())
    const first = await verifier.verify(token)
    first.subject = 'mallory'
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-1' })
  })
})
