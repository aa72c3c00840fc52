import { listRunEvents, transitionRun, withTenant } from '@weave/db'
import { RunPage, RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { PRICING_SPEC } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_runs')
  token = await h.token(tenant, 'alice')
  const graph = { name: 'pricing', spec: PRICING_SPEC }
  expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: graph }), 201)
})
afterAll(async () => h.close())

const start = (body: unknown, headers?: Record<string, string>) =>
  h.call({ method: 'POST', url: '/v1/runs', token, body, ...(headers ? { headers } : {}) })

describe('POST /v1/runs', () => {
  it('queues a run: 202, a Location, the run.queued event and a job named by the run id', async () => {
    const response = await start({ graph: 'pricing', input: { amount: 10 } })
    const run = expectJson(response, 202, RunView)
    expect(response.headers.location).toBe(`/v1/runs/${run.id}`)
    expect(run).toMatchObject({
      graph: 'pricing',
      version: 1,
      status: 'queued',
      steps: 0,
      state: {},
      pendingApprovals: [],
      createdBy: 'alice',
      forkedFrom: null,
      finishedAt: null,
    })
    const job = await h.queues.runs.getJob(run.id)
    expect(job?.name).toBe('run')
    expect(job?.data).toEqual({ runId: run.id, tenant })
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, run.id))
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['run.queued', { graph: 'pricing', version: 1 }],
    ])
  })

  it('replays the same Idempotency-Key and body with 200 and the original run', async () => {
    const key = { 'idempotency-key': `k-${Date.now()}` }
    const first = expectJson(
      await start({ graph: 'pricing', input: { amount: 3 } }, key),
      202,
      RunView,
    )
    const again = await start({ graph: 'pricing', input: { amount: 3 } }, key)
    expect(expectJson(again, 200, RunView).id).toBe(first.id)
    expect(again.headers.location).toBe(`/v1/runs/${first.id}`)
    expect(again.headers['idempotent-replayed']).toBe('true')
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, first.id))
    expect(events).toHaveLength(1)
  })

  it('answers 409 for the same Idempotency-Key with another body, 400 for an over-long key', async () => {
    const key = { 'idempotency-key': `k2-${Date.now()}` }
    expectJson(await start({ graph: 'pricing', input: { amount: 3 } }, key), 202)
    const other = await start({ graph: 'pricing', input: { amount: 4 } }, key)
    expectProblem(other, 409, 'idempotency-conflict')
    const long = await start(
      { graph: 'pricing', input: { amount: 4 } },
      { 'idempotency-key': 'k'.repeat(256) },
    )
    expect(expectProblem(long, 400).errors?.[0]?.path).toBe('/headers/idempotency-key')
  })

  it("answers 400 with paths under /body/input when the input fails the spec's schema", async () => {
    const problem = expectProblem(
      await start({ graph: 'pricing', input: { amount: 'ten', note: 5 } }),
      400,
    )
    expect(problem.errors?.map((e) => e.path).sort()).toEqual([
      '/body/input/amount',
      '/body/input/note',
    ])
    const missing = expectProblem(await start({ graph: 'pricing', input: {} }), 400)
    expect(missing.errors?.[0]?.path).toBe('/body/input/amount')
    const nul = expectProblem(
      await start({ graph: 'pricing', input: { amount: 1, note: 'a\u0000b' } }),
      400,
    )
    expect(nul.errors?.[0]?.path).toBe('/body/input')
  })

  it('refuses a schema that recurses without end at registration, and a value it loops on with 400', async () => {
    const endless = { ...PRICING_SPEC, input: { $ref: '#' } }
    const refused = expectProblem(
      await h.call({
        method: 'POST',
        url: '/v1/graphs',
        token,
        body: { name: 'loop', spec: endless },
      }),
      422,
    )
    expect(JSON.stringify(refused.errors)).toContain('refers to itself without end')
    // Endless only for an object holding `a`, so registration's sample values pass it.
    const loopsOnA = { if: { type: 'object', required: ['a'] }, then: { $ref: '#' } }
    const graph = { name: 'loops-on-a', spec: { ...PRICING_SPEC, input: loopsOnA } }
    expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: graph }), 201)
    const problem = expectProblem(await start({ graph: 'loops-on-a', input: { a: 1 } }), 400)
    expect(problem.errors?.[0]?.message).toContain('refers to itself without end')
    expectJson(await start({ graph: 'loops-on-a', input: { b: 1 } }), 202)
  })

  it('refuses input with a reserved __ key or an approval record key, naming the key', async () => {
    const count = async () =>
      expectJson(await h.call({ method: 'GET', url: '/v1/runs?limit=200', token }), 200, RunPage)
        .items.length
    const before = await count()
    const reserved = expectProblem(
      await start({ graph: 'pricing', input: { amount: 1, __budget: 1_000_000 } }),
      400,
      'validation-failed',
    )
    expect(reserved.errors).toEqual([
      { path: '/body/input/__budget', message: expect.stringContaining('__budget') },
    ])
    const forged = expectProblem(
      await start({ graph: 'pricing', input: { amount: 1, review: { status: 'approved' } } }),
      400,
      'validation-failed',
    )
    expect(forged.errors?.map((e) => e.path)).toEqual(['/body/input/review'])
    expect(await count()).toBe(before)
  })

  it('answers 400, never 500, for JSON that Postgres could not store as sent', async () => {
    const deep = `${'['.repeat(100)}1${']'.repeat(100)}`
    const inputs = [
      '{"amount":1e400}',
      '{"amount":1,"note":"\\ud800"}',
      `{"amount":1,"deep":${deep}}`,
    ]
    for (const input of inputs) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: `{"graph":"pricing","input":${input}}`,
      })
      expect(expectProblem(response, 400).errors?.[0]?.path, input.slice(0, 40)).toBe('/body/input')
    }
    const spec = await h.call({
      method: 'POST',
      url: '/v1/graphs',
      token,
      body: { name: 'nul', spec: { entry: 'a\u0000', steps: {} }, description: 'x\u0000' },
    })
    expect(
      expectProblem(spec, 400)
        .errors?.map((e) => e.path)
        .sort(),
    ).toEqual(['/body/description', '/body/spec'])
  })

  it('answers 404 for an unknown graph or version', async () => {
    expectProblem(await start({ graph: 'ghost', input: {} }), 404, 'graph-not-found')
    expectProblem(
      await start({ graph: 'pricing', version: 7, input: { amount: 1 } }),
      404,
      'graph-version-not-found',
    )
  })
})

describe('GET /v1/runs', () => {
  it('filters by status and graph and pages with cursors, newest first', async () => {
    const spec = { entry: 'a', steps: { a: { kind: 'set', values: { x: '1' } } } }
    expectJson(
      await h.call({ method: 'POST', url: '/v1/graphs', token, body: { name: 'tiny', spec } }),
      201,
    )
    const ids: string[] = []
    for (let i = 0; i < 3; i += 1)
      ids.push(expectJson(await start({ graph: 'tiny', input: {} }), 202, RunView).id)
    await withTenant(h.database, tenant, (tx) =>
      transitionRun(tx, ids[0] as string, ['queued'], 'failed'),
    )
    const page1 = expectJson(
      await h.call({ method: 'GET', url: '/v1/runs?graph=tiny&limit=2', token }),
      200,
      RunPage,
    )
    expect(page1.items.map((r) => r.id)).toEqual([ids[2], ids[1]])
    expect(page1.items[0]).not.toHaveProperty('state')
    const page2 = expectJson(
      await h.call({
        method: 'GET',
        url: `/v1/runs?graph=tiny&limit=2&cursor=${page1.nextCursor}`,
        token,
      }),
      200,
      RunPage,
    )
    expect(page2.items.map((r) => r.id)).toEqual([ids[0]])
    expect(page2.nextCursor).toBeNull()
    const failed = expectJson(
      await h.call({ method: 'GET', url: '/v1/runs?graph=tiny&status=failed', token }),
      200,
      RunPage,
    )
    expect(failed.items.map((r) => r.id)).toEqual([ids[0]])
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/runs?cursor=abc', token }),
      400,
      'invalid-cursor',
    )
    expectProblem(await h.call({ method: 'GET', url: '/v1/runs?status=lost', token }), 400)
    expectProblem(await h.call({ method: 'GET', url: '/v1/runs?limit=201', token }), 400)
  })
})
