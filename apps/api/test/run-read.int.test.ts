import {
  applyRetention,
  concurrencyLinePosition,
  createRun,
  getRun,
  listApprovals,
  withTenant,
  type RunRow,
} from '@weave/db'
import { MemStore, type State } from '@weave/kernel'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { RunView } from '../src/schemas/runs.js'
import { readCheckpoint, tenantStore, visibleState } from '../src/services/checkpoints.js'
import { checkpointNsHead } from '../src/services/latest-checkpoint.js'
import { toRunView } from '../src/services/run-views.js'
import { randomTenant } from './support/database.js'
import {
  asTenant,
  executeWithKernel,
  moveRun,
  PRICING_SPEC,
  seedApproval,
} from './support/fixtures.js'
import { createHarness, expectJson, type Harness } from './support/harness.js'

// GET /v1/runs/{id} reads the run, its pending approvals and its latest checkpoint's stored text
// in one statement (weave_read_run), then decodes the checkpoint as the kernel does. It must show
// what the two reads it replaced showed: the run with its approvals, then the checkpoint read
// through the tenant's PgStore.

let h: Harness
const tenant = randomTenant()
let author: string

beforeAll(async () => {
  h = await createHarness('api_run_read')
  author = await h.token(tenant, 'author')
  const register = async (name: string, spec: unknown) => {
    const response = await h.call({
      method: 'POST',
      url: '/v1/graphs',
      token: author,
      body: { name, spec },
    })
    expect(response.statusCode, response.body).toBe(201)
  }
  await register('pricing', PRICING_SPEC)
  await register('child', {
    entry: 'a',
    steps: { a: { kind: 'set', values: { made: "'child'" } } },
  })
  await register('parent', {
    entry: 'call',
    steps: { call: { kind: 'subgraph', graph: 'child', saveAs: 'called' } },
  })
  await register('forgetful', {
    entry: 'a',
    steps: { a: { kind: 'set', values: { n: '1' }, next: 'b' }, b: { kind: 'set', values: {} } },
    retention: { checkpoints: 'none' },
  })
})
afterAll(async () => h?.close())
afterEach(() => {
  vi.restoreAllMocks()
})

/** The view as GET built it before: the run, its pending approvals, then its checkpoint. */
async function previousView(owner: string, id: string): Promise<RunView> {
  const { run, pending, position } = await withTenant(h.database, owner, async (tx) => {
    const row = (await getRun(tx, id)) as RunRow
    const approvals = await listApprovals(tx, { runId: id, status: 'pending' })
    const line = row.held ? await concurrencyLinePosition(tx, row) : null
    return { run: row, pending: approvals.items.map((a) => a.id), position: line }
  })
  const store = tenantStore(h.database, owner)
  const checkpoint = await readCheckpoint(store, run.graphName, run.id)
  return toRunView(run, visibleState(checkpoint), pending, position)
}

/** Reads the run through the service, counting the statements sent to Postgres. */
async function countedGet(owner: string, id: string): Promise<{ view: RunView; sent: number }> {
  const query = vi.spyOn(pg.Client.prototype, 'query')
  try {
    const view = await h.services.runs.get(owner, id)
    return { view, sent: query.mock.calls.length }
  } finally {
    query.mockRestore()
  }
}

/** A queued run of version 1 of `graph`. */
async function queuedRun(graph = 'pricing', input: State = { amount: 10 }): Promise<RunRow> {
  return withTenant(h.database, tenant, async (tx) => {
    const created = await createRun(tx, {
      graphName: graph,
      graphVersion: 1,
      input,
      createdBy: 'starter',
    })
    return created.run
  })
}

/** A queued run of `graph` whose checkpoints the kernel has written, as a worker would. */
async function executedRun(graph: string, input: State): Promise<RunRow> {
  const run = await queuedRun(graph, input)
  await executeWithKernel(h.database, h.registry, tenant, { ...run, graph, version: 1 }, input)
  return run
}

describe('GET /v1/runs/{id} in one statement', () => {
  it("reads ahead the address the kernel reads a run's latest checkpoint at", async () => {
    const kernelStore = new MemStore()
    const get = vi.spyOn(kernelStore, 'get')
    await readCheckpoint(kernelStore, 'pricing', 'run-1')
    expect(get).toHaveBeenCalledTimes(1)
    const [ns, key] = get.mock.calls[0]!
    const store = tenantStore(h.database, tenant)
    expect(store.namespaceColumn(ns)).toBe(`${checkpointNsHead(store)}pricing`)
    expect(key).toBe('run-1')
  })

  it('shows a queued run without a checkpoint as before, in one statement', async () => {
    const run = await queuedRun()
    const { view, sent } = await countedGet(tenant, run.id)
    expect(sent).toBe(1)
    expect(view).toEqual(await previousView(tenant, run.id))
    expect(view.state).toEqual({})
  })

  it('shows a running and a completed run with their latest checkpoint as before', async () => {
    const running = await executedRun('pricing', { amount: 10 })
    await moveRun(h.database, tenant, running.id, 'running')
    const completed = await executedRun('pricing', { amount: 20 })
    await moveRun(h.database, tenant, completed.id, 'completed')
    for (const run of [running, completed]) {
      const { view, sent } = await countedGet(tenant, run.id)
      expect(sent).toBe(1)
      expect(view).toEqual(await previousView(tenant, run.id))
    }
    const { view } = await countedGet(tenant, completed.id)
    expect(view).toMatchObject({ status: 'completed', state: { amount: 20, total: 40 } })
  })

  it('shows a waiting run with its pending approvals and yielded checkpoint as before', async () => {
    const { run, approvalId } = await seedApproval(h.database, tenant)
    await executeWithKernel(
      h.database,
      h.registry,
      tenant,
      { ...run, graph: 'pricing', version: 1 },
      { amount: 60 },
    )
    const { view, sent } = await countedGet(tenant, run.id)
    expect(sent).toBe(1)
    expect(view).toEqual(await previousView(tenant, run.id))
    expect(view).toMatchObject({ status: 'waiting', pendingApprovals: [approvalId] })
    expect(view.state).toEqual({ amount: 60, total: 120, size: 'big' })
  })

  it("shows a run's own state, not its subgraph's, as before", async () => {
    const run = await executedRun('parent', {})
    const { view, sent } = await countedGet(tenant, run.id)
    expect(sent).toBe(1)
    expect(view).toEqual(await previousView(tenant, run.id))
    expect(view.state).toMatchObject({ called: { made: 'child' } })
  })

  it('shows a run whose history retention removed with its final state, as before', async () => {
    const run = await executedRun('forgetful', {})
    await asTenant(
      h.database,
      tenant,
      `update runs set status = 'completed', finished_at = now(), checkpoint_seq = 2
        where id = $1`,
      [run.id],
    )
    await applyRetention(h.database, { actor: 'system:retention' })
    const store = tenantStore(h.database, tenant)
    expect(await store.list('checkpoint:forgetful', `${run.id}/`)).toEqual([])
    const { view, sent } = await countedGet(tenant, run.id)
    expect(sent).toBe(1)
    expect(view).toEqual(await previousView(tenant, run.id))
    expect(view).toMatchObject({ status: 'completed', state: { n: 1 } })
    const retained = await withTenant(h.database, tenant, (tx) => getRun(tx, run.id))
    expect(retained?.retainedSeq).toBe(2)
  })

  it('refuses a corrupt latest checkpoint with the error the kernel raises', async () => {
    const run = await queuedRun()
    await tenantStore(h.database, tenant).put('checkpoint:pricing', run.id, '[1]')
    const before = await previousView(tenant, run.id).catch((err: unknown) => err)
    const now = await h.services.runs.get(tenant, run.id).catch((err: unknown) => err)
    expect(now).toEqual(before)
    expect(now).toMatchObject({ code: 'corrupt-checkpoint' })
  })

  it('reads the line position of a held run only', async () => {
    const token = await h.token(tenant, 'starter')
    const start = async (amount: number) =>
      expectJson(
        await h.call({
          method: 'POST',
          url: '/v1/runs',
          token,
          body: { graph: 'pricing', input: { amount }, concurrencyKey: 'read-line' },
        }),
        202,
        RunView,
      )
    const first = await start(1)
    const held = await start(2)
    expect(held.linePosition).toBe(1)
    const admitted = await countedGet(tenant, first.id)
    expect(admitted.sent).toBe(1)
    expect(admitted.view).toEqual(await previousView(tenant, first.id))
    const waiting = await countedGet(tenant, held.id)
    expect(waiting.sent).toBeGreaterThan(1)
    expect(waiting.view).toEqual(await previousView(tenant, held.id))
    expect(waiting.view.linePosition).toBe(1)
  })

  it("answers 404 for another tenant's run and leaves no tenant on the connection", async () => {
    const run = await executedRun('pricing', { amount: 10 })
    const stranger = await h.token(randomTenant(), 'mallory')
    const response = await h.call({ method: 'GET', url: `/v1/runs/${run.id}`, token: stranger })
    expect(response.statusCode, response.body).toBe(404)
    expect(response.json()).toMatchObject({ type: '/problems/run-not-found' })
    await expect(h.services.runs.get(randomTenant(), run.id)).rejects.toMatchObject({
      code: 'run-not-found',
    })
    await h.services.runs.get(tenant, run.id)
    // The tenant was local to the statement's transaction: a later query on any pooled
    // connection sees none, so row-level security hides every run and checkpoint.
    const size = h.database.pool.totalCount
    const clients = await Promise.all(Array.from({ length: size }, () => h.database.pool.connect()))
    try {
      for (const c of clients) {
        const { rows } = await c.query<{ runs: string; kv: string }>(
          'SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM weave_kv) AS kv',
        )
        expect(rows[0]).toEqual({ runs: '0', kv: '0' })
      }
    } finally {
      for (const c of clients) c.release()
    }
  })
})
