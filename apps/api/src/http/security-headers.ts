import helmet from '@fastify/helmet'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasQueryCredential } from './scrub-url.js'

/**
 * The CSP of every response but Swagger UI's: the API serves JSON and event streams, never a page,
 * so nothing may load, run or frame it.
 */
const API_CSP = {
  defaultSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
}

/**
 * Swagger UI's CSP (see openapi.ts): its scripts, styles and fonts are served from `/docs/static`,
 * its icons are `data:` images, and "Try it out" calls this origin. Its React components set
 * inline styles, hence `'unsafe-inline'` for styles only; no inline script is allowed.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ')

/**
 * Security headers on every response (helmet: `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY`, a CSP, HSTS, `Referrer-Policy: no-referrer`, ...), and
 * `Cache-Control: no-store` on every `/v1` response and every response to a request that carried
 * credentials, so no shared cache or browser keeps tenant data. Register it before the rate
 * limiter, so a 429 carries the headers too.
 */
export const securityHeadersPlugin = fp(
  async (app) => {
    await app.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
      frameguard: { action: 'deny' },
    })
    app.addHook('onSend', async (request, reply, payload) => {
      if (isPrivate(request)) reply.header('cache-control', 'no-store')
      return payload
    })
  },
  { name: 'weave-security-headers' },
)

function isPrivate(request: FastifyRequest): boolean {
  const { url, headers } = request
  return (
    url === '/v1' ||
    url.startsWith('/v1/') ||
    url.startsWith('/v1?') ||
    headers.authorization !== undefined ||
    headers.cookie !== undefined ||
    hasQueryCredential(url)
  )
}
