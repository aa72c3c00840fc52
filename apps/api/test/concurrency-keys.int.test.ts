import {
  claimRun,
  getRun,
  listAudit,
  listRunEvents,
  transitionRun,
  withTenant,
  type RunRow,
} from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RunPage, RunView } from '../src/schemas/runs.js'
import { randomTenant } from './support/database.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
let intruder: string
const tenant = randomTenant()
const other = randomTenant()
const SPEC = { entry: 'work', steps: { work: { kind: 'set', values: { done: 'true' } } } }

beforeAll(async () => {
  h = await createHarness('api_concurrency')
  token = await h.token(tenant, 'alice')
  intruder = await h.token(other, 'mallory')
  for (const as of [token, intruder]) {
    const graph = { name: 'refunds', spec: SPEC }
    expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token: as, body: graph }), 201)
  }
})
afterAll(async () => h.close())

const start = (body: Record<string, unknown>, as = token) =>
  h.call({ method: 'POST', url: '/v1/runs', token: as, body: { graph: 'refunds', ...body } })
const getView = async (id: string, as = token) =>
  expectJson(await h.call({ method: 'GET', url: `/v1/runs/${id}`, token: as }), 200, RunView)
const listByKey = async (key: string, as = token) =>
  expectJson(
    await h.call({ method: 'GET', url: `/v1/runs?concurrencyKey=${key}&limit=200`, token: as }),
    200,
    RunPage,
  ).items
const rowOf = (id: string) =>
  withTenant(h.database, tenant, (tx) => getRun(tx, id)) as Promise<RunRow>
const hasJob = async (id: string) => (await h.queues.runs.getJob(id)) !== undefined

/** The runs of a key that hold a slot: admitted (not in line) and not ended. */
async function slotHolders(key: string): Promise<RunRow[]> {
  const rows = await Promise.all((await listByKey(key)).map((r) => rowOf(r.id)))
  return rows.filter((r) => !r.held && ['queued', 'running', 'waiting'].includes(r.status))
}

/** Takes and completes a run as a worker would (no worker runs in these tests). */
async function runToEnd(id: string): Promise<void> {
  await withTenant(h.database, tenant, async (tx) => {
    expect(await claimRun(tx, id, ['queued'], `job-${id}`)).not.toBeNull()
  })
  await withTenant(h.database, tenant, async (tx) => {
    expect(await transitionRun(tx, id, ['running'], 'completed')).not.toBeNull()
  })
}

describe('POST /v1/runs with a concurrency key', () => {
  it('admits at most the limit under 20 concurrent starts; the rest wait and start in line order', async () => {
    const key = 'refunds:race'
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        start({ input: { n }, concurrencyKey: key, concurrencyLimit: 2 }),
      ),
    )
    const started = answers.map((a) => expectJson(a, 202, RunView))
    const admitted = started.filter((r) => r.linePosition === null)
    expect(admitted).toHaveLength(2)
    expect(started.every((r) => r.concurrencyKey === key && r.concurrencyLimit === 2)).toBe(true)
    // Each start saw the line as the starts before it left it: places 1 to 18, each once.
    const places = started.flatMap((r) => (r.linePosition === null ? [] : [r.linePosition]))
    expect(places.sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1))
    for (const run of started) expect(await hasJob(run.id)).toBe(run.linePosition === null)

    const rows = await Promise.all(started.map((r) => rowOf(r.id)))
    const lineOrder = rows
      .filter((r) => r.held)
      .sort((a, b) => (a.concurrencySeq ?? 0) - (b.concurrencySeq ?? 0))
      .map((r) => r.id)
    const admissions: string[] = []
    let holders = await slotHolders(key)
    // Two ends at once, each in its own transaction: the later one sees the earlier and both
    // slots are filled again.
    while (holders.length > 0) {
      expect(holders.length).toBeLessThanOrEqual(2)
      const before = new Set(holders.map((r) => r.id))
      await Promise.all(holders.map((r) => runToEnd(r.id)))
      holders = await slotHolders(key)
      for (const r of holders.sort((a, b) => (a.concurrencySeq ?? 0) - (b.concurrencySeq ?? 0))) {
        if (!before.has(r.id)) admissions.push(r.id)
      }
    }
    expect(admissions).toEqual(lineOrder)
    const after = await listByKey(key)
    expect(after.map((r) => r.status)).toEqual(Array(20).fill('completed'))
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, lineOrder[0]!))
    // (the test's stand-in for a worker writes no events of its own)
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.admitted'])
    expect(events[0]?.data).toMatchObject({ concurrencyKey: key, held: true })
    expect(events[1]?.data).toEqual({ concurrencyKey: key })
  })

  it('shows a waiting run its place, which moves up as runs ahead leave the line', async () => {
    const key = 'refunds:places'
    const first = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    const second = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    const third = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    expect([first.linePosition, second.linePosition, third.linePosition]).toEqual([null, 1, 2])
    expect(await getView(third.id)).toMatchObject({ status: 'queued', linePosition: 2 })

    // Cancelling a run in line takes it out: nobody is admitted, the line closes up.
    const cancelled = await h.call({ method: 'POST', url: `/v1/runs/${second.id}/cancel`, token })
    expect(expectJson(cancelled, 202, RunView).status).toBe('cancelled')
    expect(await getView(third.id)).toMatchObject({ status: 'queued', linePosition: 1 })
    expect((await rowOf(first.id)).held).toBe(false)

    // Cancelling the run holding the slot admits the next one and enqueues its job.
    expect(await hasJob(third.id)).toBe(false)
    const stop = await h.call({ method: 'POST', url: `/v1/runs/${first.id}/cancel`, token })
    expect(expectJson(stop, 202, RunView).status).toBe('cancelled')
    expect(await getView(third.id)).toMatchObject({ status: 'queued', linePosition: null })
    expect(await hasJob(third.id)).toBe(true)
  })

  it('keeps a slot for a run waiting on a person, and starts a failed run again only into a free slot', async () => {
    const key = 'refunds:waiting'
    const held = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    await withTenant(h.database, tenant, async (tx) => {
      await claimRun(tx, held.id, ['queued'], `job-${held.id}`)
      await transitionRun(tx, held.id, ['running'], 'waiting')
    })
    const next = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    expect(next.linePosition).toBe(1)
    await withTenant(h.database, tenant, (tx) =>
      transitionRun(tx, held.id, ['waiting'], 'failed', { error: { message: 'no' } }),
    )
    expect(await getView(next.id)).toMatchObject({ linePosition: null })
    // The failed run's slot went to the next run: retrying it now would take a third.
    const retry = () => h.call({ method: 'POST', url: `/v1/runs/${held.id}/resume`, token })
    expect(expectProblem(await retry(), 409, 'run-not-resumable').detail).toMatch(/free slot/)
    await runToEnd(next.id)
    expectJson(await retry(), 202, RunView)
    // The retried run holds the slot until it ends again: a new run waits.
    expect(expectJson(await start({ concurrencyKey: key }), 202, RunView).linePosition).toBe(1)
  })

  it('ends a run and cancels the run behind it at once without a deadlock, admitting the next', async () => {
    for (let round = 0; round < 8; round++) {
      const key = `refunds:cross-${round}`
      const first = expectJson(await start({ concurrencyKey: key }), 202, RunView)
      const second = expectJson(await start({ concurrencyKey: key }), 202, RunView)
      const third = expectJson(await start({ concurrencyKey: key }), 202, RunView)
      const [, cancelled] = await Promise.all([
        runToEnd(first.id),
        h.call({ method: 'POST', url: `/v1/runs/${second.id}/cancel`, token }),
      ])
      expect(expectJson(cancelled, 202, RunView).status).toBe('cancelled')
      // Whichever came first, the cancelled run never holds the slot at the end: the third does.
      expect((await slotHolders(key)).map((r) => r.id)).toEqual([third.id])
    }
  })

  it('audits the start with its key and whether it waits', async () => {
    const key = 'refunds:audit'
    const run = expectJson(await start({ concurrencyKey: key, concurrencyLimit: 3 }), 202, RunView)
    const audit = await withTenant(h.database, tenant, (tx) => listAudit(tx, { targetId: run.id }))
    expect(audit.items.map((e) => [e.action, e.details])).toEqual([
      ['run.started', { graph: 'refunds', version: 1, concurrencyKey: key, held: false }],
    ])
  })

  it("keeps tenants' keys apart: another tenant neither waits behind nor sees them", async () => {
    const key = 'shared-name'
    const mine = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    const theirs = expectJson(await start({ concurrencyKey: key }, intruder), 202, RunView)
    expect(theirs.linePosition).toBeNull()
    const queuedBehind = expectJson(await start({ concurrencyKey: key }), 202, RunView)
    expect(queuedBehind.linePosition).toBe(1)
    expect((await listByKey(key, intruder)).map((r) => r.id)).toEqual([theirs.id])
    expectProblem(await h.call({ method: 'GET', url: `/v1/runs/${mine.id}`, token: intruder }), 404)
    const cancel = { method: 'POST' as const, url: `/v1/runs/${mine.id}/cancel`, token: intruder }
    expectProblem(await h.call(cancel), 404)
    expect(await getView(queuedBehind.id)).toMatchObject({ linePosition: 1 })
  })

  it('refuses a malformed key, a limit without a key and a limit below 1 (400)', async () => {
    expectProblem(await start({ concurrencyKey: 'has space' }), 400)
    expectProblem(await start({ concurrencyKey: 'x'.repeat(201) }), 400)
    expectProblem(await start({ concurrencyLimit: 2 }), 400)
    expectProblem(await start({ concurrencyKey: 'k', concurrencyLimit: 0 }), 400)
    expectProblem(await h.call({ method: 'GET', url: '/v1/runs?concurrencyKey=a%20b', token }), 400)
  })
})
