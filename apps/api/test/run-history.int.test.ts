import { CheckpointView, RunEventPage, RunHistory, RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { PRICING_SPEC, executeWithKernel } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_run_history')
  token = await h.token(tenant, 'alice')
  const graph = { name: 'pricing', spec: PRICING_SPEC }
  expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: graph }), 201)
})
afterAll(async () => h.close())

const start = (body: unknown) => h.call({ method: 'POST', url: '/v1/runs', token, body })

describe('a run executed by the kernel', () => {
  let run: RunView

  beforeAll(async () => {
    run = expectJson(await start({ graph: 'pricing', input: { amount: 60 } }), 202, RunView)
    const result = await executeWithKernel(h.database, h.registry, tenant, run, {
      amount: 60,
    })
    expect(result.stopReason).toBe('yielded')
  })

  it("shows the latest checkpoint's state without protocol keys", async () => {
    const got = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${run.id}`, token }),
      200,
      RunView,
    )
    expect(got.state).toEqual({ amount: 60, total: 120, size: 'big' })
    expect(got.id).toBe(run.id)
  })

  it('lists the history and reads one checkpoint with its state', async () => {
    const history = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${run.id}/history`, token }),
      200,
      RunHistory,
    )
    expect(history.items.map((c) => [c.seq, c.lastStep, c.status])).toEqual([
      [1, 'price', 'step_done'],
      [2, 'label', 'step_done'],
      [3, 'review', 'yielded'],
    ])
    expect(history.items[2]?.yieldPhase).toBeDefined()
    const first = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${run.id}/history/1`, token }),
      200,
      CheckpointView,
    )
    expect(first).toMatchObject({
      seq: 1,
      lastStep: 'price',
      status: 'step_done',
      state: { amount: 60, total: 120 },
    })
    expect(Object.keys(first.state).some((k) => k.startsWith('__'))).toBe(false)
    const missing = await h.call({ method: 'GET', url: `/v1/runs/${run.id}/history/9`, token })
    expectProblem(missing, 404, 'checkpoint-not-found')
    expectProblem(await h.call({ method: 'GET', url: `/v1/runs/${run.id}/history/x`, token }), 400)
  })

  it('forks a checkpoint into a new queued run, and 404s for a missing one', async () => {
    const response = await h.call({
      method: 'POST',
      url: `/v1/runs/${run.id}/fork`,
      token,
      body: { seq: 1, input: { amount: 1 } },
    })
    const fork = expectJson(response, 202, RunView)
    expect(response.headers.location).toBe(`/v1/runs/${fork.id}`)
    expect(fork).toMatchObject({
      status: 'queued',
      forkedFrom: run.id,
      forkedSeq: 1,
      graph: 'pricing',
      version: 1,
    })
    expect((await h.queues.runs.getJob(fork.id))?.data).toEqual({ runId: fork.id, tenant })
    const missing = await h.call({
      method: 'POST',
      url: `/v1/runs/${run.id}/fork`,
      token,
      body: { seq: 42 },
    })
    expectProblem(missing, 404, 'checkpoint-not-found')
    const source = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${run.id}`, token }),
      200,
      RunView,
    )
    expect(source.state).toEqual({ amount: 60, total: 120, size: 'big' })
  })

  it('lists the events in order as JSON, with format=json or Accept: application/json', async () => {
    for (const [query, accept] of [
      ['?format=json', '*/*'],
      ['', 'application/json'],
    ] as const) {
      const events = expectJson(
        await h.call({
          method: 'GET',
          url: `/v1/runs/${run.id}/events${query}`,
          token,
          headers: { accept },
        }),
        200,
        RunEventPage,
      )
      expect(events.items).toEqual([
        {
          id: 1,
          type: 'run.queued',
          data: { graph: 'pricing', version: 1 },
          at: expect.stringMatching(/Z$/),
        },
      ])
      expect(events.nextCursor).toBeNull()
    }
  })

  it("lists an event recorded with data older than its type's schema as it was stored", async () => {
    const started = expectJson(
      await start({ graph: 'pricing', input: { amount: 1 } }),
      202,
      RunView,
    )
    // Earlier versions recorded a worker's cancellation without `by`.
    const client = await h.database.pool.connect()
    try {
      await client.query('begin')
      await client.query(`select set_config('weave.tenant', $1, true)`, [tenant])
      await client.query(`select weave_append_run_event($1, $2, 'run.cancelled', '{}'::jsonb)`, [
        tenant,
        started.id,
      ])
      await client.query('commit')
    } finally {
      client.release()
    }
    const events = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${started.id}/events?format=json`, token }),
      200,
      RunEventPage,
    )
    expect(events.items.map((e) => [e.type, e.data])).toEqual([
      ['run.queued', { graph: 'pricing', version: 1 }],
      ['run.cancelled', {}],
    ])
  })

  it('pages events with a cursor and refuses a bad one', async () => {
    const forked = expectJson(
      await h.call({ method: 'POST', url: `/v1/runs/${run.id}/fork`, token, body: { seq: 2 } }),
      202,
      RunView,
    )
    await h.call({ method: 'POST', url: `/v1/runs/${forked.id}/cancel`, token })
    const first = expectJson(
      await h.call({
        method: 'GET',
        url: `/v1/runs/${forked.id}/events?format=json&limit=1`,
        token,
      }),
      200,
      RunEventPage,
    )
    expect(first.items.map((e) => e.type)).toEqual(['run.queued'])
    const rest = expectJson(
      await h.call({
        method: 'GET',
        url: `/v1/runs/${forked.id}/events?format=json&cursor=${first.nextCursor}`,
        token,
      }),
      200,
      RunEventPage,
    )
    expect(rest.items.map((e) => [e.id, e.type])).toEqual([[2, 'run.cancelled']])
    const bad = await h.call({
      method: 'GET',
      url: `/v1/runs/${forked.id}/events?format=json&cursor=x1`,
      token,
    })
    expectProblem(bad, 400, 'invalid-cursor')
  })
})
