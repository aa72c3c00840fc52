import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp } from '../src/app.js'
import { auditContext } from '../src/routes/audit-context.js'
import { captureLog, testConfig } from './support.js'

const PROXY = '10.0.0.2'

// Answers with the address the audit log would record for the request.
const auditIp: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/audit-ip',
    {
      schema: {
        operationId: 'auditIp',
        summary: 'The audit ip',
        tags: ['audit'],
        response: { 200: z.object({ ip: z.string() }) },
      },
    },
    async (request) => ({ ip: auditContext(request).ip }),
  )
}

function appTrusting(trust: string | undefined, env: Record<string, string> = {}) {
  return buildApp({
    config: testConfig({ ...(trust === undefined ? {} : { WEAVE_TRUST_PROXY: trust }), ...env }),
    log: captureLog().log,
    routes: [auditIp],
  })
}

async function auditIpOf(
  app: ReturnType<typeof appTrusting>,
  remoteAddress: string,
  forwardedFor?: string,
): Promise<string> {
  const response = await app.inject({
    method: 'GET',
    url: '/v1/audit-ip',
    remoteAddress,
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  })
  expect(response.statusCode).toBe(200)
  return response.json().ip
}

describe('WEAVE_TRUST_PROXY', () => {
  it('records the client behind a trusted proxy as the audit ip, and ignores the header otherwise', async () => {
    const app = appTrusting('10.0.0.0/8')
    expect(await auditIpOf(app, PROXY, '203.0.113.9')).toBe('203.0.113.9')
    // A client that is no trusted proxy cannot choose its own address.
    expect(await auditIpOf(app, '198.51.100.7', '203.0.113.9')).toBe('198.51.100.7')
    // Only the hops of trusted proxies are skipped: a forged first entry is not believed.
    expect(await auditIpOf(app, PROXY, '192.0.2.66, 203.0.113.9')).toBe('203.0.113.9')
  })

  it('trusts no X-Forwarded-For by default', async () => {
    expect(await auditIpOf(appTrusting(undefined), PROXY, '203.0.113.9')).toBe(PROXY)
  })

  it('skips exactly the given number of proxy hops', async () => {
    const app = appTrusting('1')
    expect(await auditIpOf(app, PROXY, '192.0.2.66, 203.0.113.9')).toBe('203.0.113.9')
    expect(await auditIpOf(appTrusting('2'), PROXY, '192.0.2.66, 203.0.113.9')).toBe('192.0.2.66')
  })

  it('rate limits clients behind a trusted proxy one by one, not the proxy as a whole', async () => {
    const app = appTrusting('10.0.0.0/8', { WEAVE_RATE_LIMIT_PER_MINUTE: '1' })
    const call = (forwardedFor: string) =>
      app.inject({
        method: 'GET',
        url: '/v1/audit-ip',
        remoteAddress: PROXY,
        headers: { 'x-forwarded-for': forwardedFor },
      })
    expect((await call('203.0.113.1')).statusCode).toBe(200)
    expect((await call('203.0.113.2')).statusCode).toBe(200)
    expect((await call('203.0.113.1')).statusCode).toBe(429)
  })

  it('does not let an untrusted client dodge the limit with X-Forwarded-For', async () => {
    const app = appTrusting(undefined, { WEAVE_RATE_LIMIT_PER_MINUTE: '1' })
    const call = (forwardedFor: string) =>
      app.inject({
        method: 'GET',
        url: '/v1/audit-ip',
        remoteAddress: '198.51.100.7',
        headers: { 'x-forwarded-for': forwardedFor },
      })
    expect((await call('203.0.113.1')).statusCode).toBe(200)
    expect((await call('203.0.113.2')).statusCode).toBe(429)
  })
})
