import { getRun, listAudit, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FiringPage, FiringView, SchedulePage, ScheduleView } from '../src/schemas/schedules.js'
import { randomTenant } from './support/database.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
let other: string
const tenant = randomTenant()
// Its run waits for a person, so it stays active: no worker runs in these tests anyway.
const SPEC = { entry: 'review', steps: { review: { kind: 'approval', title: 'Go?' } } }

beforeAll(async () => {
  h = await createHarness('api_schedules')
  token = await h.token(tenant, 'alice')
  other = await h.token(randomTenant(), 'mallory')
  const graph = { name: 'nightly', spec: SPEC }
  expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: graph }), 201)
})
afterAll(async () => h.close())

const create = (body: unknown, as = token) =>
  h.call({ method: 'POST', url: '/v1/schedules', token: as, body })
const post = (url: string, as = token) => h.call({ method: 'POST', url, token: as })
const get = (url: string, as = token) => h.call({ method: 'GET', url, token: as })
const auditOf = async (id: string) =>
  (await withTenant(h.database, tenant, (tx) => listAudit(tx, { targetId: id }))).items.map(
    (e) => e.action,
  )

describe('POST /v1/schedules', () => {
  it('creates a cron schedule in a time zone with its job scheduler, audited', async () => {
    const created = expectJson(
      await create({
        target: { graph: 'nightly' },
        cron: '0 6 * * 1',
        timezone: 'Europe/Berlin',
        input: { account: 'acc_7' },
      }),
      201,
      ScheduleView,
    )
    expect(created).toMatchObject({
      target: { graph: 'nightly', version: null, thread: null },
      cron: '0 6 * * 1',
      timezone: 'Europe/Berlin',
      everyMs: null,
      input: { account: 'acc_7' },
      overlap: 'skip',
      catchUp: 'once',
      paused: false,
      createdBy: 'alice',
    })
    expect(await h.queues.hasScheduleTimer(created.id)).toBe(true)
    const scheduler = await h.queues.timers.getJobScheduler(`schedule-${created.id}`)
    expect(scheduler).toMatchObject({ pattern: '0 6 * * 1', tz: 'Europe/Berlin' })
    expect(await auditOf(created.id)).toEqual(['schedule.created'])
  })

  it('refuses a bad cron expression, time zone or policy with 422 pointing at the field', async () => {
    const badCron = expectProblem(
      await create({ target: { graph: 'nightly' }, cron: '61 * * * *' }),
      422,
    )
    expect(badCron.errors?.[0]?.path).toBe('/body/cron')
    const badZone = expectProblem(
      await create({ target: { graph: 'nightly' }, cron: '* * * * *', timezone: 'Mars/Olympus' }),
      422,
    )
    expect(badZone.errors?.[0]?.path).toBe('/body/timezone')
    const enqueue = expectProblem(
      await create({ target: { graph: 'nightly' }, everyMs: 60_000, overlap: 'enqueue' }),
      422,
    )
    expect(enqueue.errors?.[0]?.path).toBe('/body/overlap')
    expectProblem(await create({ target: { graph: 'nightly' }, everyMs: 999 }), 400)
    expectProblem(await create({ target: { graph: 'nightly' } }), 400)
    expectProblem(await create({ target: { graph: 'missing' }, everyMs: 60_000 }), 404)
    expectProblem(await create({ target: { thread: 'nobody' }, everyMs: 60_000 }), 404)
  })

  it("refuses input a graph target's input schema refuses, as starting a run does", async () => {
    const typed = {
      name: 'typed',
      spec: {
        ...SPEC,
        input: {
          type: 'object',
          required: ['account'],
          properties: { account: { type: 'string' } },
        },
      },
    }
    expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token, body: typed }), 201)
    const refused = expectProblem(
      await create({ target: { graph: 'typed' }, everyMs: 60_000, input: { account: 7 } }),
      400,
    )
    expect(refused.errors?.map((e) => e.path)).toEqual(['/body/input/account'])
    expectJson(
      await create({ target: { graph: 'typed' }, everyMs: 60_000, input: { account: 'a' } }),
      201,
      ScheduleView,
    )
  })
})

describe('a schedule', () => {
  it('lists newest first in pages, and is got by id', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      ids.push(
        expectJson(
          await create({ target: { graph: 'nightly' }, everyMs: 3_600_000, paused: true }),
          201,
          ScheduleView,
        ).id,
      )
    }
    const first = expectJson(await get('/v1/schedules?limit=2'), 200, SchedulePage)
    expect(first.items.map((s) => s.id)).toEqual([ids[2], ids[1]])
    const second = expectJson(
      await get(`/v1/schedules?limit=2&cursor=${first.nextCursor}`),
      200,
      SchedulePage,
    )
    expect(second.items[0]?.id).toBe(ids[0])
    expect(expectJson(await get(`/v1/schedules/${ids[0]}`), 200, ScheduleView).paused).toBe(true)
    expectProblem(await get('/v1/schedules/not-a-uuid'), 404)
  })

  it('pauses and resumes (removing and setting its job scheduler), idempotently', async () => {
    const s = expectJson(
      await create({ target: { graph: 'nightly' }, everyMs: 3_600_000 }),
      201,
      ScheduleView,
    )
    expect(expectJson(await post(`/v1/schedules/${s.id}/pause`), 200, ScheduleView).paused).toBe(
      true,
    )
    expect(await h.queues.hasScheduleTimer(s.id)).toBe(false)
    expectJson(await post(`/v1/schedules/${s.id}/pause`), 200, ScheduleView)
    expect(expectJson(await post(`/v1/schedules/${s.id}/resume`), 200, ScheduleView).paused).toBe(
      false,
    )
    expect(await h.queues.hasScheduleTimer(s.id)).toBe(true)
    expect(await auditOf(s.id)).toEqual(['schedule.resumed', 'schedule.paused', 'schedule.created'])
  })

  it('triggers now, skipping while its run is active under overlap skip', async () => {
    const s = expectJson(
      await create({ target: { graph: 'nightly' }, everyMs: 3_600_000, paused: true }),
      201,
      ScheduleView,
    )
    const fired = expectJson(await post(`/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect(fired).toMatchObject({ outcome: 'started', manual: true, scheduledFor: null })
    const run = expectJson(await get(`/v1/runs/${fired.runId}`), 200)
    expect(run).toMatchObject({ graph: 'nightly', status: 'queued' })
    const skipped = expectJson(await post(`/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect(skipped).toMatchObject({ outcome: 'skipped', reason: 'overlap', runId: null })
    const firings = expectJson(await get(`/v1/schedules/${s.id}/firings`), 200, FiringPage)
    expect(firings.items.map((f) => f.id)).toEqual([skipped.id, fired.id])
    expect(await auditOf(s.id)).toEqual([
      'schedule.triggered',
      'schedule.triggered',
      'schedule.created',
    ])
  })

  it('starts a run per trigger under overlap allow', async () => {
    const s = expectJson(
      await create({ target: { graph: 'nightly' }, everyMs: 3_600_000, overlap: 'allow' }),
      201,
      ScheduleView,
    )
    const a = expectJson(await post(`/v1/schedules/${s.id}/trigger`), 201, FiringView)
    const b = expectJson(await post(`/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect([a.outcome, b.outcome]).toEqual(['started', 'started'])
    expect(a.runId).not.toBe(b.runId)
    expect(await h.queues.hasLiveJob('runs', b.runId!)).toBe(true)
  })

  it('fires a thread target under enqueue, holding the run behind the active one', async () => {
    expectJson(
      await h.call({
        method: 'PUT',
        url: '/v1/threads/acct-7',
        token,
        body: { graph: 'nightly' },
      }),
      201,
    )
    const s = expectJson(
      await create({ target: { thread: 'acct-7' }, everyMs: 3_600_000, overlap: 'enqueue' }),
      201,
      ScheduleView,
    )
    expect(s.target).toEqual({ graph: 'nightly', version: null, thread: 'acct-7' })
    const a = expectJson(await post(`/v1/schedules/${s.id}/trigger`), 201, FiringView)
    const b = expectJson(await post(`/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect([a.outcome, b.outcome]).toEqual(['started', 'started'])
    const held = await withTenant(h.database, tenant, (tx) => getRun(tx, b.runId!))
    expect(held).toMatchObject({ held: true, status: 'queued', baseRunId: a.runId })
    expect(await h.queues.hasLiveJob('runs', b.runId!)).toBe(false)
  })

  it('is deleted: it leaves the list, its job scheduler goes, and it answers 404', async () => {
    const s = expectJson(
      await create({ target: { graph: 'nightly' }, cron: '*/5 * * * *' }),
      201,
      ScheduleView,
    )
    const deleted = await h.call({ method: 'DELETE', url: `/v1/schedules/${s.id}`, token })
    expect(deleted.statusCode).toBe(204)
    expect(await h.queues.hasScheduleTimer(s.id)).toBe(false)
    expectProblem(await get(`/v1/schedules/${s.id}`), 404)
    expectProblem(await post(`/v1/schedules/${s.id}/trigger`), 404)
    const list = expectJson(await get('/v1/schedules?limit=200'), 200, SchedulePage)
    expect(list.items.some((x) => x.id === s.id)).toBe(false)
    expect(await auditOf(s.id)).toEqual(['schedule.deleted', 'schedule.created'])
  })
})

describe('tenancy', () => {
  it("keeps another tenant from seeing or touching a tenant's schedules (404)", async () => {
    const s = expectJson(
      await create({ target: { graph: 'nightly' }, everyMs: 3_600_000, paused: true }),
      201,
      ScheduleView,
    )
    expectProblem(await get(`/v1/schedules/${s.id}`, other), 404)
    expectProblem(await get(`/v1/schedules/${s.id}/firings`, other), 404)
    for (const action of ['pause', 'resume', 'trigger']) {
      expectProblem(await post(`/v1/schedules/${s.id}/${action}`, other), 404)
    }
    const deleted = await h.call({ method: 'DELETE', url: `/v1/schedules/${s.id}`, token: other })
    expect(deleted.statusCode).toBe(404)
    expect(expectJson(await get('/v1/schedules', other), 200, SchedulePage).items).toEqual([])
    expectProblem(await create({ target: { graph: 'nightly' }, everyMs: 60_000 }, other), 404)
    expect(expectJson(await get(`/v1/schedules/${s.id}`), 200, ScheduleView).paused).toBe(true)
  })
})
