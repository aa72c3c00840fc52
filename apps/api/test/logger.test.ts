import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { scrubUrl } from '../src/http/scrub-url.js'
import { SECRET, captureLog, testConfig } from './support.js'

describe('request logs', () => {
  it('never contain a credential sent in the URL, in the query or as an approval link token', async () => {
    const capture = captureLog()
    const app = buildApp({ config: testConfig(), log: capture.log })
    const jwt = await mintDevToken({
      secret: SECRET,
      tenant: 'acme',
      subject: 'alice',
      scopes: ['runs:read'],
      audience: 'weave',
      expiresIn: 600,
    })
    const secrets = [
      jwt,
      'query-token-4b1d9e',
      'api-key-77c0aa',
      'hook-token-0123456789',
      'hook-token-encoded-5566',
      'client-secret-9f9f',
    ]
    const urls = [
      `/v1/runs?access_token=${jwt}&limit=5`,
      `/v1/runs?token=${secrets[1]}`,
      `/v1/audit?since=2025-01-01&API_KEY=${secrets[2]}`,
      `/v1/approval-hooks/${secrets[3]}?comment=ok`,
      `/v1/Approval%2Dhooks/${secrets[4]}`,
      `/v1/graphs?client%5Fsecret=${secrets[5]}`,
      `/healthz?${jwt}`,
    ]
    for (const url of urls) await app.inject({ method: 'GET', url })

    const output = capture.lines().join('\n')
    expect(output).toContain('incoming request')
    for (const secret of secrets) expect(output).not.toContain(secret)
    expect(output).not.toContain(jwt.split('.')[2])
    // What is not a credential stays readable.
    expect(output).toContain('/v1/runs?access_token=[redacted]&limit=5')
    expect(output).toContain('/v1/audit?since=2025-01-01&API_KEY=[redacted]')
    expect(output).toContain('/v1/approval-hooks/[redacted]?comment=ok')
  })
})

describe('scrubUrl', () => {
  it('redacts credential-like query parameters and keeps the rest as sent', () => {
    expect(scrubUrl('/v1/runs?status=queued&limit=5')).toBe('/v1/runs?status=queued&limit=5')
    expect(scrubUrl('/x?password=p&jwt=j&signature=s&code=c&session_id=i&key=k')).toBe(
      '/x?password=[redacted]&jwt=[redacted]&signature=[redacted]&code=[redacted]&session_id=[redacted]&key=[redacted]',
    )
    expect(scrubUrl('/x?token=')).toBe('/x?token=[redacted]')
  })

  it('redacts the approval link token wherever the path puts it', () => {
    expect(scrubUrl('/v1/approval-hooks/abc')).toBe('/v1/approval-hooks/[redacted]')
    expect(scrubUrl('/v1/approval-hooks/abc/more')).toBe('/v1/approval-hooks/[redacted]/more')
    expect(scrubUrl('//v1//approval-hooks/abc')).toBe('//v1//approval-hooks/[redacted]')
    expect(scrubUrl('/v1/approval-hooks')).toBe('/v1/approval-hooks')
    expect(scrubUrl('/v1/approvals/abc')).toBe('/v1/approvals/abc')
  })

  it('redacts a JWT whatever the parameter is called', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJlLXZhbHVl'
    expect(scrubUrl(`/x?q=${jwt}`)).toBe('/x?q=[redacted]')
    expect(scrubUrl(`/x?${jwt}`)).toBe('/x?[redacted]')
  })
})
