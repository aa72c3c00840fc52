import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectPage, expectProblem } from './support/expect-http.js'
import {
  startWeave,
  waitForRun,
  waitForStep,
  type ApiResponse,
  type WeaveProcesses,
} from './support/weave-processes.js'

const ALL_SCOPES =
  'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide audit:read'

const GATE_SPEC = {
  entry: 'review',
  steps: {
    review: { kind: 'approval', title: 'Proceed?', next: 'after' },
    after: { kind: 'set', values: { done: 'true' } },
  },
}
const QUICK_SPEC = { entry: 'only', steps: { only: { kind: 'set', values: { x: '1' } } } }

/** A 401 as docs/http-api.md describes it: problem details and a Bearer challenge. */
function expectUnauthorized(res: ApiResponse): void {
  expectProblem(res, 401)
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/)
}

describe('tenant isolation and authentication', () => {
  let weave: WeaveProcesses
  let alice: string
  let mallory: string
  let waitingRunId: string
  let completedRunId: string
  let approvalId: string

  beforeAll(async () => {
    weave = await startWeave()
    alice = await weave.token('tenant-a', 'alice', ALL_SCOPES)
    mallory = await weave.token('tenant-b', 'mallory', ALL_SCOPES)
    for (const [name, spec] of [
      ['gate', GATE_SPEC],
      ['quick', QUICK_SPEC],
    ] as const) {
      expectJson(
        await weave.call('POST', '/v1/graphs', { token: alice, body: { name, spec } }),
        201,
      )
    }
    const start = async (graph: string) =>
      expectJson(await weave.call('POST', '/v1/runs', { token: alice, body: { graph } }), 202)
        .id as string
    waitingRunId = await start('gate')
    completedRunId = await start('quick')
    const waiting = await waitForStep(weave, alice, waitingRunId, 'review')
    approvalId = waiting.pendingApprovals[0]
    await waitForRun(weave, alice, completedRunId, ['completed'])
  })
  afterAll(async () => {
    await weave?.stop()
  })

  it("answers 404 to another tenant for every one of tenant A's resources", async () => {
    const run = waitingRunId
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', '/v1/graphs/gate'],
      ['GET', '/v1/graphs/gate/versions/1'],
      ['GET', '/v1/graphs/gate/topology'],
      ['GET', '/v1/graphs/gate/topology?format=mermaid'],
      ['DELETE', '/v1/graphs/gate'],
      ['POST', '/v1/runs', { graph: 'gate', input: {} }],
      ['GET', `/v1/runs/${run}`],
      ['GET', `/v1/runs/${run}/history`],
      ['GET', `/v1/runs/${run}/history/1`],
      ['GET', `/v1/runs/${run}/events?format=json`],
      ['POST', `/v1/runs/${completedRunId}/fork`, { seq: 1 }],
      ['POST', `/v1/runs/${run}/cancel`],
      ['POST', `/v1/runs/${run}/resume`, { input: {} }],
      ['GET', `/v1/approvals/${approvalId}`],
      ['POST', `/v1/approvals/${approvalId}/decision`, { decision: 'approve' }],
      ['POST', `/v1/approvals/${approvalId}/decision`, { decision: 'reject' }],
    ]
    for (const [method, path, body] of attempts) {
      const res = await weave.call(method, path, { token: mallory, body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 })
      expectProblem(res, 404)
    }

    // Nothing of tenant A moved.
    const runA = expectJson(await weave.call('GET', `/v1/runs/${run}`, { token: alice }), 200)
    expect(runA).toMatchObject({ status: 'waiting', cancelRequested: false })
    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(approval).toMatchObject({ status: 'pending', decisions: [] })
    const graph = expectJson(await weave.call('GET', '/v1/graphs/gate', { token: alice }), 200)
    expect(graph.archivedAt).toBeNull()
    const runs = expectPage(await weave.call('GET', '/v1/runs', { token: alice }))
    expect(runs).toHaveLength(2)
  })

  it("does not list tenant A's rows to tenant B", async () => {
    for (const path of [
      '/v1/graphs',
      '/v1/graphs?includeArchived=true',
      '/v1/runs',
      '/v1/runs?graph=gate',
      '/v1/approvals',
      `/v1/approvals?runId=${waitingRunId}`,
      '/v1/audit',
    ]) {
      expect({
        path,
        items: expectPage(await weave.call('GET', path, { token: mallory })),
      }).toEqual({ path, items: [] })
    }
    // Tenant A sees its own.
    expect(expectPage(await weave.call('GET', '/v1/approvals', { token: alice }))).toHaveLength(1)
    expect(
      expectPage(await weave.call('GET', '/v1/audit', { token: alice })).length,
    ).toBeGreaterThan(0)
  })

  it('keeps graph names per tenant', async () => {
    const res = await weave.call('POST', '/v1/graphs', {
      token: mallory,
      body: { name: 'gate', spec: QUICK_SPEC },
    })
    expect(expectJson(res, 201)).toMatchObject({ name: 'gate', version: 1 })
    const mine = expectJson(await weave.call('GET', '/v1/graphs/gate', { token: alice }), 200)
    expect(mine.latest.spec.entry).toBe('review')
    expect(mine.versions).toHaveLength(1)
  })

  it('answers 401 with a Bearer challenge to missing and bad tokens', async () => {
    const secret = new TextEncoder().encode(weave.jwtSecret)
    const claims = { tid: 'tenant-a', scope: ALL_SCOPES }
    const signed = (o: { iss?: string; aud?: string; exp?: number | string; key?: Uint8Array }) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('alice')
        .setIssuedAt()
        .setAudience(o.aud ?? 'weave')
        .setIssuer(o.iss ?? 'weave-e2e')
        .setExpirationTime(o.exp ?? '1h')
      return jwt.sign(o.key ?? secret)
    }
    // The control: a token made the same way with the right values is accepted.
    const good = await signed({})
    expectJson(await weave.call('GET', '/v1/graphs', { token: good }), 200)

    const unsigned = new UnsecuredJWT(claims)
      .setSubject('alice')
      .setAudience('weave')
      .setIssuer('weave-e2e')
      .setExpirationTime('1h')
      .encode()
    const { privateKey } = await generateKeyPair('RS256')
    const rsaSigned = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject('alice')
      .setAudience('weave')
      .setIssuer('weave-e2e')
      .setExpirationTime('1h')
      .sign(privateKey)
    const noTenant = await new SignJWT({ scope: ALL_SCOPES })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setAudience('weave')
      .setIssuer('weave-e2e')
      .setExpirationTime('1h')
      .sign(secret)
    const bad: Array<[string, string | undefined]> = [
      ['no token', undefined],
      ['not a JWT', 'not-a-jwt'],
      ['alg none', unsigned],
      ['another secret', await signed({ key: new TextEncoder().encode('x'.repeat(64)) })],
      ['expired', await signed({ exp: Math.floor(Date.now() / 1000) - 3600 })],
      ['wrong audience', await signed({ aud: 'someone-else' })],
      ['wrong issuer', await signed({ iss: 'evil-issuer' })],
      ['RS256 where HS256 is configured', rsaSigned],
      ['no tenant claim', noTenant],
      ['tampered payload', tamper(good)],
    ]
    for (const [what, token] of bad) {
      for (const [method, path] of [
        ['GET', '/v1/graphs'],
        ['GET', `/v1/runs/${waitingRunId}`],
        ['POST', `/v1/approvals/${approvalId}/decision`],
      ] as const) {
        const res = await weave.call(method, path, {
          ...(token === undefined ? {} : { token }),
          ...(method === 'POST' ? { body: { decision: 'approve' } } : {}),
        })
        expect({ what, path, status: res.status }).toEqual({ what, path, status: 401 })
        expectUnauthorized(res)
      }
    }
    const scheme = await weave.call('GET', '/v1/graphs', {
      headers: { authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` },
    })
    expectUnauthorized(scheme)

    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(approval.status).toBe('pending')
  })

  it('answers 403 to a valid token that lacks the scope', async () => {
    const readOnly = await weave.token('tenant-a', 'reader', 'graphs:read runs:read')
    const cases: Array<[string, string, unknown?]> = [
      ['POST', '/v1/graphs', { name: 'x', spec: QUICK_SPEC }],
      ['DELETE', '/v1/graphs/gate'],
      ['POST', '/v1/runs', { graph: 'quick' }],
      ['POST', `/v1/runs/${waitingRunId}/cancel`],
      ['POST', `/v1/runs/${completedRunId}/fork`, { seq: 1 }],
      ['GET', '/v1/approvals'],
      ['POST', `/v1/approvals/${approvalId}/decision`, { decision: 'approve' }],
      ['GET', '/v1/audit'],
      ['GET', '/v1/audit/verify'],
    ]
    for (const [method, path, body] of cases) {
      const res = await weave.call(method, path, { token: readOnly, body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 })
      expectProblem(res, 403)
    }
    // What the scopes do allow still works.
    expectJson(await weave.call('GET', '/v1/graphs', { token: readOnly }), 200)
    expectJson(await weave.call('GET', `/v1/runs/${waitingRunId}`, { token: readOnly }), 200)
    const run = expectJson(
      await weave.call('GET', `/v1/runs/${waitingRunId}`, { token: alice }),
      200,
    )
    expect(run.status).toBe('waiting')
  })
})

/** The token with its payload changed (tenant swapped) and the original signature kept. */
function tamper(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >
  claims.tid = 'tenant-b'
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
}
