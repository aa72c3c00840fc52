import {
  claimRun,
  getRun,
  listAudit,
  listRunsInStatus,
  requestResume,
  transitionRun,
  withTenant,
  type RunRow,
} from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ThreadPage, ThreadRunPage, ThreadRunView, ThreadView } from '../src/schemas/threads.js'
import { randomTenant } from './support/database.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()
const SPEC = {
  entry: 'reply',
  merge: { messages: 'append' },
  steps: { reply: { kind: 'set', values: { replies: '$count(messages)' } } },
}

beforeAll(async () => {
  h = await createHarness('api_threads')
  token = await h.token(tenant, 'alice')
  const graph = { name: 'support', spec: SPEC }
  expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: graph }), 201)
})
afterAll(async () => h.close())

const put = (key: string, body: unknown, as = token) =>
  h.call({ method: 'PUT', url: `/v1/threads/${key}`, token: as, body })
const startOn = (key: string, body: unknown, as = token) =>
  h.call({ method: 'POST', url: `/v1/threads/${key}/runs`, token: as, body })
const runsOf = async (key: string) =>
  expectJson(
    await h.call({ method: 'GET', url: `/v1/threads/${key}/runs?limit=200`, token }),
    200,
    ThreadRunPage,
  ).items
const rowOf = (id: string) =>
  withTenant(h.database, tenant, (tx) => getRun(tx, id)) as Promise<RunRow>

/** Ends a run as a worker would (no worker runs in these tests). */
async function finish(id: string, from: RunRow['status'][] = ['queued', 'running']) {
  await withTenant(h.database, tenant, (tx) => transitionRun(tx, id, from, 'completed'))
}

describe('PUT /v1/threads/{key}', () => {
  it('creates a thread once (201), then answers it (200) with metadata replaced, audited', async () => {
    const created = expectJson(
      await put('case-1', { graph: 'support', metadata: { customer: 'c_1' } }),
      201,
      ThreadView,
    )
    expect(created).toMatchObject({
      key: 'case-1',
      graph: 'support',
      version: null,
      metadata: { customer: 'c_1' },
      strategy: 'reject',
      status: 'idle',
      activeRun: null,
      state: {},
      createdBy: 'alice',
    })
    const again = expectJson(
      await put('case-1', { graph: 'support', metadata: { customer: 'c_1', vip: true } }),
      200,
      ThreadView,
    )
    expect(again.metadata).toEqual({ customer: 'c_1', vip: true })
    const audit = await withTenant(h.database, tenant, (tx) =>
      listAudit(tx, { targetId: 'case-1' }),
    )
    expect(audit.items.map((e) => e.action)).toEqual(['thread.updated', 'thread.created'])
  })

  it('refuses a key of another graph (409), an unknown graph (404) and a bad key (400)', async () => {
    expectJson(await put('case-2', { graph: 'support' }), 201)
    const other = { name: 'other', spec: SPEC }
    expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: other }), 201)
    expectProblem(await put('case-2', { graph: 'other' }), 409)
    expectProblem(await put('case-3', { graph: 'missing' }), 404, 'graph-not-found')
    expectProblem(await put('bad%20key', { graph: 'support' }), 400)
  })

  it('creates one thread under 20 concurrent puts of one key', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => put('case-race', { graph: 'support' })),
    )
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(1)
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(19)
  })
})

describe('GET /v1/threads', () => {
  it('filters by metadata and status and pages newest first', async () => {
    for (const n of [1, 2, 3]) {
      expectJson(await put(`list-${n}`, { graph: 'support', metadata: { team: 'list', n } }), 201)
    }
    expectJson(await startOn('list-2', { input: { messages: ['hi'] } }), 202)
    const url = (q: string) => `/v1/threads?metadata=${encodeURIComponent('{"team":"list"}')}${q}`
    const first = expectJson(
      await h.call({ method: 'GET', url: url('&limit=2'), token }),
      200,
      ThreadPage,
    )
    expect(first.items.map((t) => t.key)).toEqual(['list-3', 'list-2'])
    const second = expectJson(
      await h.call({
        method: 'GET',
        url: url(`&limit=2&cursor=${first.nextCursor ?? ''}`),
        token,
      }),
      200,
      ThreadPage,
    )
    expect(second.items.map((t) => t.key)).toEqual(['list-1'])
    expect(second.nextCursor).toBeNull()
    const busy = expectJson(
      await h.call({ method: 'GET', url: url('&status=busy'), token }),
      200,
      ThreadPage,
    )
    expect(busy.items.map((t) => [t.key, t.status])).toEqual([['list-2', 'busy']])
    const idle = expectJson(
      await h.call({ method: 'GET', url: url('&status=idle'), token }),
      200,
      ThreadPage,
    )
    expect(idle.items.map((t) => t.key)).toEqual(['list-3', 'list-1'])
    expectProblem(await h.call({ method: 'GET', url: '/v1/threads?metadata=[1]', token }), 400)
  })
})

describe('DELETE /v1/threads/{key}', () => {
  it('archives an idle thread (audited), refuses a busy one, and then answers 404', async () => {
    expectJson(await put('arch', { graph: 'support' }), 201)
    const run = expectJson(await startOn('arch', {}), 202, ThreadRunView)
    const busy = expectProblem(
      await h.call({ method: 'DELETE', url: '/v1/threads/arch', token }),
      409,
    )
    expect(busy).toMatchObject({ activeRun: run.id })
    await finish(run.id)
    const gone = await h.call({ method: 'DELETE', url: '/v1/threads/arch', token })
    expect(gone.statusCode).toBe(204)
    expectProblem(await h.call({ method: 'GET', url: '/v1/threads/arch', token }), 404)
    expectProblem(await startOn('arch', {}), 404)
    expectProblem(await put('arch', { graph: 'support' }), 409)
    const audit = await withTenant(h.database, tenant, (tx) => listAudit(tx, { targetId: 'arch' }))
    expect(audit.items[0]?.action).toBe('thread.archived')
  })
})

describe('tenancy', () => {
  it("hides a tenant's threads from another tenant (404), who cannot start or archive them", async () => {
    expectJson(await put('private', { graph: 'support' }), 201)
    const other = await h.token(randomTenant(), 'mallory')
    expectProblem(await h.call({ method: 'GET', url: '/v1/threads/private', token: other }), 404)
    expectProblem(await startOn('private', {}, other), 404)
    expectProblem(await h.call({ method: 'DELETE', url: '/v1/threads/private', token: other }), 404)
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/threads/private/runs', token: other }),
      404,
    )
    const list = expectJson(
      await h.call({ method: 'GET', url: '/v1/threads', token: other }),
      200,
      ThreadPage,
    )
    expect(list.items).toEqual([])
  })
})

describe('one active run per thread, 20 concurrent starts', () => {
  const race = (key: string, strategy: string) =>
    Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        startOn(key, { input: { messages: [`m${i}`] }, strategy }),
      ),
    )

  it('reject: exactly one run starts; 19 get 409 naming it', async () => {
    expectJson(await put('race-reject', { graph: 'support' }), 201)
    const answers = await race('race-reject', 'reject')
    const started = answers.filter((a) => a.statusCode === 202)
    expect(started).toHaveLength(1)
    const run = expectJson(started[0]!, 202, ThreadRunView)
    expect(run).toMatchObject({ thread: 'race-reject', held: false, status: 'queued' })
    const refused = answers.filter((a) => a.statusCode === 409)
    expect(refused).toHaveLength(19)
    for (const r of refused) expect(expectProblem(r, 409)).toMatchObject({ activeRun: run.id })
    expect(await h.queues.runs.getJob(run.id)).toBeDefined()
    const thread = expectJson(
      await h.call({ method: 'GET', url: '/v1/threads/race-reject', token }),
      200,
      ThreadView,
    )
    expect(thread).toMatchObject({ status: 'busy', activeRun: { id: run.id } })
  })

  it('enqueue: one runs, 19 are held in a chain, each released when the one before ends', async () => {
    expectJson(await put('race-enqueue', { graph: 'support', strategy: 'enqueue' }), 201)
    const answers = await race('race-enqueue', 'enqueue')
    // The refused answers themselves, so a failure shows why.
    expect(answers.filter((a) => a.statusCode !== 202).map((a) => a.body)).toEqual([])
    const rows = await Promise.all((await runsOf('race-enqueue')).reverse().map((r) => rowOf(r.id)))
    expect(rows.map((r) => r.threadSeq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(rows.map((r) => r.held)).toEqual([false, ...Array<boolean>(19).fill(true)])
    // Each starts from the one before it.
    expect(rows.map((r) => r.baseRunId)).toEqual([null, ...rows.slice(0, 19).map((r) => r.id)])
    // Ending the active run releases exactly the next one, in order.
    for (let i = 0; i < 19; i++) {
      await finish(rows[i]!.id)
      const next = await rowOf(rows[i + 1]!.id)
      expect(next).toMatchObject({ held: false, status: 'queued' })
      if (i + 2 < 20) expect((await rowOf(rows[i + 2]!.id)).held).toBe(true)
    }
  })

  it('interrupt: every start supersedes the one before; the last continues from the first', async () => {
    expectJson(await put('race-interrupt', { graph: 'support' }), 201)
    const first = expectJson(await startOn('race-interrupt', {}), 202, ThreadRunView)
    // The first run is running (a worker took it) when the 20 interrupts arrive.
    await withTenant(h.database, tenant, (tx) => transitionRun(tx, first.id, ['queued'], 'running'))
    const answers = await race('race-interrupt', 'interrupt')
    // The refused answers themselves, so a failure shows why.
    expect(answers.filter((a) => a.statusCode !== 202).map((a) => a.body)).toEqual([])
    const rows = await Promise.all(
      (await runsOf('race-interrupt')).reverse().map((r) => rowOf(r.id)),
    )
    const [running, ...rest] = rows
    expect(running).toMatchObject({ status: 'running', cancelRequested: true })
    const last = rest[rest.length - 1]!
    // The 19 before the last never started: cancelled. The last waits for the running one.
    expect(rest.slice(0, 19).map((r) => r.status)).toEqual(Array<string>(19).fill('cancelled'))
    expect(last).toMatchObject({ status: 'queued', held: true, baseRunId: running!.id })
    // The running run stops at its step boundary: the last one is released.
    await withTenant(h.database, tenant, (tx) =>
      transitionRun(tx, running!.id, ['running'], 'cancelled'),
    )
    expect(await rowOf(last.id)).toMatchObject({ status: 'queued', held: false })
  })

  it('rollback: the active run is cancelled and the last start begins from the state before it', async () => {
    expectJson(await put('race-rollback', { graph: 'support' }), 201)
    const before = expectJson(await startOn('race-rollback', {}), 202, ThreadRunView)
    await finish(before.id)
    const active = expectJson(await startOn('race-rollback', {}), 202, ThreadRunView)
    const answers = await race('race-rollback', 'rollback')
    // The refused answers themselves, so a failure shows why.
    expect(answers.filter((a) => a.statusCode !== 202).map((a) => a.body)).toEqual([])
    const rows = await Promise.all(
      (await runsOf('race-rollback')).reverse().map((r) => rowOf(r.id)),
    )
    expect(rows[1]).toMatchObject({ id: active.id, status: 'cancelled' })
    const started = rows.slice(2)
    expect(started.slice(0, 19).map((r) => r.status)).toEqual(Array<string>(19).fill('cancelled'))
    // Nothing was running, so the last start runs at once, from the run before the cancelled one.
    expect(started[19]).toMatchObject({ status: 'queued', held: false, baseRunId: before.id })
    expect(await h.queues.runs.getJob(started[19]!.id)).toBeDefined()
  })
})

describe('runs held behind a thread', () => {
  it('are never handed a job by the reconciler, nor claimed', async () => {
    expectJson(await put('held-1', { graph: 'support', strategy: 'enqueue' }), 201)
    const active = expectJson(await startOn('held-1', {}), 202, ThreadRunView)
    const held = expectJson(await startOn('held-1', {}), 202, ThreadRunView)
    expect(held.held).toBe(true)
    const queued = await listRunsInStatus(h.database, {
      status: 'queued',
      updatedBefore: new Date(Date.now() + 60_000),
      limit: 1000,
    })
    const ids = queued.map((r) => r.id)
    expect(ids).toContain(active.id)
    expect(ids).not.toContain(held.id)
    const claimed = await withTenant(h.database, tenant, (tx) =>
      claimRun(tx, held.id, ['queued'], held.id),
    )
    expect(claimed).toBeNull()
  })

  it('a failed run of a thread is not retried while another run of it is active', async () => {
    expectJson(await put('retry-1', { graph: 'support' }), 201)
    const failed = expectJson(await startOn('retry-1', {}), 202, ThreadRunView)
    await withTenant(h.database, tenant, (tx) =>
      transitionRun(tx, failed.id, ['queued'], 'failed', { stopReason: 'error' }),
    )
    const active = expectJson(await startOn('retry-1', {}), 202, ThreadRunView)
    const retry = {
      reason: 'retry' as const,
      input: {},
      atSeq: 0,
      by: 'alice',
      at: new Date().toISOString(),
    }
    const refused = await withTenant(h.database, tenant, (tx) =>
      requestResume(tx, failed.id, retry),
    )
    expect(refused).toBeNull()
    await finish(active.id)
    const taken = await withTenant(h.database, tenant, (tx) => requestResume(tx, failed.id, retry))
    expect(taken?.id).toBe(failed.id)
  })
})

describe('cancelling a thread run', () => {
  it('releases the next run of the thread and hands it its job', async () => {
    expectJson(await put('cancel-1', { graph: 'support', strategy: 'enqueue' }), 201)
    const active = expectJson(await startOn('cancel-1', {}), 202, ThreadRunView)
    const next = expectJson(await startOn('cancel-1', {}), 202, ThreadRunView)
    expect(await h.queues.runs.getJob(next.id)).toBeUndefined()
    const cancel = await h.call({ method: 'POST', url: `/v1/runs/${active.id}/cancel`, token })
    expect(cancel.statusCode).toBe(202)
    expect(await rowOf(next.id)).toMatchObject({ status: 'queued', held: false })
    expect(await h.queues.runs.getJob(next.id)).toBeDefined()
  })
})
