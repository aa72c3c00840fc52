import type { LightMyRequestResponse } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp, type App } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { problemResponses } from '../src/http/problem-responses.js'
import { SECRET, captureLog, testConfig } from './support.js'

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

function appWith(env: Record<string, string> = {}): App {
  return buildApp({ config: testConfig(env), log: captureLog().log, routes: [whoami] })
}

function token(): Promise<string> {
  return mintDevToken({
    secret: SECRET,
    tenant: 'acme',
    subject: 'alice',
    scopes: ['runs:read'],
    audience: 'weave',
    expiresIn: 600,
  })
}

function expectSecurityHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['x-content-type-options'], response.raw.req.url).toBe('nosniff')
  expect(response.headers['x-frame-options']).toBe('DENY')
  expect(response.headers['referrer-policy']).toBe('no-referrer')
  expect(response.headers['strict-transport-security']).toMatch(/max-age=\d+/)
  expect(String(response.headers['content-security-policy'])).toContain("frame-ancestors 'none'")
}

describe('security headers', () => {
  it('are sent on every response: success, problem, unknown route and rate limit', async () => {
    const app = appWith({ WEAVE_RATE_LIMIT_PER_MINUTE: '2' })
    const bearer = { authorization: `Bearer ${await token()}` }
    const responses = [
      await app.inject({ method: 'GET', url: '/healthz' }),
      await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer }),
      await app.inject({ method: 'GET', url: '/v1/whoami' }),
      await app.inject({ method: 'GET', url: '/v1/nothing-here', headers: bearer }),
      await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer }),
    ]
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 401, 404, 429])
    for (const response of responses) {
      expectSecurityHeaders(response)
      expect(response.headers['content-security-policy']).toContain("default-src 'none'")
    }
  })

  it('mark every /v1 response and every response to a request with credentials no-store', async () => {
    const app = appWith()
    const bearer = { authorization: `Bearer ${await token()}` }
    const noStore = [
      await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer }),
      await app.inject({ method: 'GET', url: '/v1/whoami' }),
      await app.inject({ method: 'GET', url: '/v1/unknown' }),
      await app.inject({ method: 'GET', url: '/healthz', headers: bearer }),
      await app.inject({ method: 'GET', url: '/healthz', headers: { cookie: 'session=1' } }),
      await app.inject({ method: 'GET', url: '/healthz?access_token=abc' }),
    ]
    for (const response of noStore) expect(response.headers['cache-control']).toBe('no-store')
    const anonymous = await app.inject({ method: 'GET', url: '/healthz' })
    expect(anonymous.headers['cache-control']).toBeUndefined()
  })
})

describe('Swagger UI', () => {
  it('answers /docs with a page whose scripts, styles and document load under its CSP', async () => {
    const app = appWith()
    const page = await app.inject({ method: 'GET', url: '/docs' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/)
    expect(csp).toContain("style-src 'self'")
    expect(csp).toContain("img-src 'self' data:")
    expect(csp).toContain("connect-src 'self'")
    // Every script is a file of this origin: no inline script that 'self' would block.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(4)
    for (const asset of assets) {
      expect(asset, 'served by this origin').toMatch(/^\/docs\//)
      const response = await app.inject({ method: 'GET', url: asset })
      expect(response.statusCode, asset).toBe(200)
      expect(response.headers['x-content-type-options']).toBe('nosniff')
      if (asset.endsWith('.js')) {
        expect(response.headers['content-type']).toMatch(/javascript/)
      }
      if (asset.endsWith('.css')) expect(response.headers['content-type']).toMatch(/^text\/css/)
    }
    // swagger-initializer.js loads the document from ./json, next to the page.
    const document = await app.inject({ method: 'GET', url: '/docs/json' })
    expect(document.statusCode).toBe(200)
    expect(document.json().openapi).toBe('3.1.0')
  })

  it('and /openapi.json are not served with WEAVE_DOCS=off, nor by default in production', async () => {
    const envs: Record<string, string>[] = [{ WEAVE_DOCS: 'off' }, { NODE_ENV: 'production' }]
    for (const env of envs) {
      const app = appWith(env)
      for (const url of [
        '/docs',
        '/docs/static/swagger-ui-bundle.js',
        '/docs/json',
        '/openapi.json',
      ]) {
        const response = await app.inject({ method: 'GET', url })
        expect(response.statusCode, `${url} with ${JSON.stringify(env)}`).toBe(404)
      }
    }
    const forced = appWith({ NODE_ENV: 'production', WEAVE_DOCS: 'on' })
    expect((await forced.inject({ method: 'GET', url: '/docs' })).statusCode).toBe(200)
    expect((await forced.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200)
  })
})
