import { z } from 'zod'
import { ApprovalView } from '../src/schemas/approvals.js'
import { pageOf } from '../src/schemas/common.js'
import { GraphView } from '../src/schemas/graphs.js'
import { RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Scope } from '../src/auth/principal.js'
import { randomTenant } from './support/database.js'
import { PRICING_SPEC, executeWithKernel, seedApproval } from './support/fixtures.js'
import {
  createHarness,
  expectJson,
  expectProblem,
  type Call,
  type Harness,
} from './support/harness.js'

const ListPage = pageOf(z.unknown())
let h: Harness
const owner = randomTenant()
const intruder = randomTenant()
let ownerToken: string
let intruderToken: string
let runId: string
let approvalId: string

beforeAll(async () => {
  h = await createHarness('api_tenancy')
  ownerToken = await h.token(owner, 'alice')
  intruderToken = await h.token(intruder, 'mallory')
  const graph = { name: 'pricing', spec: PRICING_SPEC }
  expectJson(
    await h.call({ method: 'POST', url: '/v1/graphs', token: ownerToken, body: graph }),
    201,
  )
  const run = expectJson(
    await h.call({
      method: 'POST',
      url: '/v1/runs',
      token: ownerToken,
      body: { graph: 'pricing', input: { amount: 5 } },
    }),
    202,
    RunView,
  )
  runId = run.id
  await executeWithKernel(h.database, h.registry, owner, run, { amount: 5 })
  ;({ approvalId } = await seedApproval(h.database, owner))
})
afterAll(async () => h.close())

/** Every route of the resource API, with the scope it needs and a body it accepts. */
const routes = (): (Call & { scope: Scope })[] => [
  {
    method: 'POST',
    url: '/v1/graphs',
    scope: 'graphs:write',
    body: { name: 'pricing', spec: PRICING_SPEC },
  },
  { method: 'GET', url: '/v1/graphs', scope: 'graphs:read' },
  { method: 'GET', url: '/v1/graphs/pricing', scope: 'graphs:read' },
  { method: 'GET', url: '/v1/graphs/pricing/versions/1', scope: 'graphs:read' },
  { method: 'GET', url: '/v1/graphs/pricing/topology', scope: 'graphs:read' },
  { method: 'DELETE', url: '/v1/graphs/pricing', scope: 'graphs:write' },
  {
    method: 'POST',
    url: '/v1/runs',
    scope: 'runs:write',
    body: { graph: 'pricing', input: { amount: 1 } },
  },
  { method: 'GET', url: '/v1/runs', scope: 'runs:read' },
  { method: 'GET', url: `/v1/runs/${runId}`, scope: 'runs:read' },
  { method: 'GET', url: `/v1/runs/${runId}/history`, scope: 'runs:read' },
  { method: 'GET', url: `/v1/runs/${runId}/history/1`, scope: 'runs:read' },
  { method: 'GET', url: `/v1/runs/${runId}/events?format=json`, scope: 'runs:read' },
  { method: 'POST', url: `/v1/runs/${runId}/fork`, scope: 'runs:write', body: { seq: 1 } },
  { method: 'POST', url: `/v1/runs/${runId}/cancel`, scope: 'runs:write' },
  { method: 'POST', url: `/v1/runs/${runId}/resume`, scope: 'runs:write', body: {} },
  { method: 'GET', url: '/v1/approvals', scope: 'approvals:read' },
  { method: 'GET', url: `/v1/approvals/${approvalId}`, scope: 'approvals:read' },
  {
    method: 'POST',
    url: `/v1/approvals/${approvalId}/decision`,
    scope: 'approvals:decide',
    body: { decision: 'approve' },
  },
  { method: 'GET', url: '/v1/audit', scope: 'audit:read' },
  { method: 'GET', url: '/v1/audit/verify', scope: 'audit:read' },
  { method: 'POST', url: '/v1/audit/anchors', scope: 'audit:anchor' },
]

describe('tenancy', () => {
  it("answers 404 for every one of another tenant's resources, and nothing changes", async () => {
    const foreign = routes().filter((route) => /\/(pricing|[0-9a-f-]{36})/.test(route.url))
    expect(foreign.length).toBe(13)
    for (const route of foreign) {
      const response = await h.call({ ...route, token: intruderToken })
      expectProblem(response, 404)
    }
    const run = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${runId}`, token: ownerToken }),
      200,
      RunView,
    )
    expect(run.status).toBe('queued')
    const approval = expectJson(
      await h.call({ method: 'GET', url: `/v1/approvals/${approvalId}`, token: ownerToken }),
      200,
      ApprovalView,
    )
    expect(approval.status).toBe('pending')
    const graph = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs/pricing', token: ownerToken }),
      200,
      GraphView,
    )
    expect(graph.archivedAt).toBeNull()
  })

  it("shows another tenant nothing of this tenant's lists or audit log", async () => {
    for (const url of [
      '/v1/graphs',
      '/v1/runs',
      '/v1/approvals',
      '/v1/audit',
      '/v1/audit/anchors',
    ]) {
      const page = expectJson(
        await h.call({ method: 'GET', url, token: intruderToken }),
        200,
        ListPage,
      )
      expect(page.items, url).toEqual([])
    }
    const verify = expectJson(
      await h.call({ method: 'GET', url: '/v1/audit/verify', token: intruderToken }),
      200,
    )
    expect(verify).toEqual({ ok: true, checked: 0, anchor: null })
    const started = await h.call({
      method: 'POST',
      url: '/v1/runs',
      token: intruderToken,
      body: { graph: 'pricing', input: { amount: 1 } },
    })
    expectProblem(started, 404, 'graph-not-found')
  })

  it('answers 404, never 400 or 500, for ids that are not UUIDs', async () => {
    const urls: [Call['method'], string, unknown?][] = [
      ['GET', '/v1/runs/123'],
      ['GET', '/v1/runs/123/history'],
      ['GET', '/v1/runs/123/history/1'],
      ['GET', '/v1/runs/123/events'],
      ['POST', '/v1/runs/123/fork', { seq: 1 }],
      ['POST', '/v1/runs/123/cancel'],
      ['POST', '/v1/runs/123/resume'],
      ['GET', '/v1/approvals/x%00y'],
      ['POST', '/v1/approvals/123/decision', { decision: 'approve' }],
      ['GET', '/v1/graphs/UPPER'],
      ['GET', '/v1/graphs/a%00b/versions/1'],
      ['DELETE', '/v1/graphs/..'],
    ]
    for (const [method, url, body] of urls) {
      expectProblem(await h.call({ method, url, token: ownerToken, body }), 404)
    }
  })
})

describe('scopes', () => {
  it('answers 403 to a token without the scope a route needs, and 401 without a token', async () => {
    for (const route of routes()) {
      const others = (await import('./support/harness.js')).ALL_SCOPES.filter(
        (scope) => scope !== route.scope,
      )
      const token = await h.token(owner, 'alice', others)
      const forbidden = await h.call({ ...route, token })
      expect(expectProblem(forbidden, 403, 'forbidden').detail, route.url).toContain(route.scope)
      expectProblem(await h.call({ ...route }), 401)
    }
  })
})
