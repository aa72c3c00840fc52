import { listWebhookDeliveries, tenantEvents, withTenant, type WebhookDelivery } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FiringView, ScheduleView } from '../src/schemas/schedules.js'
import { TenantEventPage } from '../src/schemas/tenant-events.js'
import { ThreadRunPage, ThreadRunView } from '../src/schemas/threads.js'
import { CreatedWebhook, DeliveryPage } from '../src/schemas/webhooks.js'
import { randomTenant } from './support/database.js'
import { expectJson, expectProblem, type Call } from './support/harness.js'
import { ALLOWED_HOST, createWebhookHarness, type WebhookHarness } from './support/webhook-app.js'

let h: WebhookHarness
const tenant = randomTenant()
const other = randomTenant()
let token: string
let outsider: string
// Its run waits for a person, so it stays active: no worker runs in these tests.
const SPEC = { entry: 'review', steps: { review: { kind: 'approval', title: 'Go?' } } }
const TYPED = {
  ...SPEC,
  input: {
    type: 'object',
    required: ['account'],
    properties: { account: { type: 'string' }, note: { type: 'string' } },
  },
}
const EVENTS = [
  'thread.created',
  'thread.updated',
  'thread.archived',
  'thread.run.queued',
  'thread.run.interrupted',
  'thread.run.rolled_back',
  'schedule.created',
  'schedule.paused',
  'schedule.resumed',
  'schedule.deleted',
  'schedule.fired',
  'schedule.skipped',
]

beforeAll(async () => {
  h = await createWebhookHarness('api_thread_schedule_events')
  token = await h.token(tenant, 'alice')
  outsider = await h.token(other, 'mallory')
  for (const as of [token, outsider]) {
    expectJson(await call('POST', '/v1/graphs', { name: 'desk', spec: SPEC }, as), 201)
    expectJson(await call('POST', '/v1/graphs', { name: 'typed', spec: TYPED }, as), 201)
  }
})
afterAll(async () => h?.close())

function call(method: Call['method'], url: string, body?: unknown, as = token) {
  return h.callWithWebhooks({ method, url, token: as, ...(body === undefined ? {} : { body }) })
}

async function subscribe(as: string, events: readonly string[] = EVENTS) {
  const body = { url: `http://${ALLOWED_HOST}/hooks`, events }
  return expectJson(await call('POST', '/v1/webhooks', body, as), 201, CreatedWebhook)
}

const deliveriesOf = (t: string, webhookId: string): Promise<WebhookDelivery[]> =>
  withTenant(h.database, t, async (tx) => (await listWebhookDeliveries(tx, webhookId)).items)

/** The payloads a webhook was given, in the order their events were written. */
async function payloadsOf(t: string, webhookId: string) {
  const deliveries = await deliveriesOf(t, webhookId)
  const order = await withTenant(h.database, t, async (tx) =>
    tx.db.select({ id: tenantEvents.id, seq: tenantEvents.seq }).from(tenantEvents),
  )
  const seqOf = new Map(order.map((e) => [e.id, e.seq]))
  const position = (d: WebhookDelivery) => (d.eventId ? seqOf.get(d.eventId)! : d.eventSeq!)
  return deliveries
    .sort((a, b) => position(a) - position(b))
    .map((d) => d.payload as { type: string; timestamp: string; data: Record<string, unknown> })
}

describe('thread and schedule events to webhooks', () => {
  it("delivers a thread's changes to the tenant's subscribed webhook only", async () => {
    const mine = await subscribe(token)
    const runsOnly = await subscribe(token, ['run.queued'])
    const theirs = await subscribe(outsider)

    expectJson(await call('PUT', '/v1/threads/desk-1', { graph: 'desk' }), 201)
    expectJson(
      await call('PUT', '/v1/threads/desk-1', { graph: 'desk', strategy: 'interrupt' }),
      200,
    )
    const first = expectJson(
      await call('POST', '/v1/threads/desk-1/runs', { input: { note: 'a' } }),
      202,
      ThreadRunView,
    )
    const second = expectJson(
      await call('POST', '/v1/threads/desk-1/runs', { input: { note: 'b' } }),
      202,
      ThreadRunView,
    )
    const third = expectJson(
      await call('POST', '/v1/threads/desk-1/runs', { input: {}, strategy: 'rollback' }),
      202,
      ThreadRunView,
    )
    expectJson(await call('POST', `/v1/runs/${third.id}/cancel`), 202)
    expect((await call('DELETE', '/v1/threads/desk-1')).statusCode).toBe(204)

    const payloads = await payloadsOf(tenant, mine.id)
    expect(payloads.map((p) => p.type)).toEqual([
      'thread.created',
      'thread.updated',
      'thread.run.queued',
      'thread.run.queued',
      'thread.run.interrupted',
      'thread.run.queued',
      'thread.run.rolled_back',
      'thread.archived',
    ])
    expect(payloads[0]!.data).toMatchObject({
      thread: 'desk-1',
      graph: 'desk',
      strategy: 'reject',
      eventId: expect.any(String),
    })
    expect(payloads[1]!.data).toMatchObject({ changed: ['strategy'], strategy: 'interrupt' })
    expect(payloads[2]!.data).toMatchObject({ runId: first.id, held: false })
    expect(payloads[4]!.data).toEqual({
      thread: 'desk-1',
      runId: second.id,
      superseded: [first.id],
      eventId: expect.any(String),
    })
    expect(payloads[6]!.data).toMatchObject({ runId: third.id, superseded: [second.id] })
    expect(payloads.every((p) => !Number.isNaN(Date.parse(p.timestamp)))).toBe(true)

    // The delivery list names the event; a run event's webhook got no thread event.
    const listed = expectJson(
      await call('GET', `/v1/webhooks/${mine.id}/deliveries`),
      200,
      DeliveryPage,
    )
    expect(listed.items[0]).toMatchObject({
      eventType: 'thread.archived',
      runId: null,
      eventSeq: null,
      eventId: payloads[7]!.data.eventId,
      status: 'pending',
    })
    expect((await payloadsOf(tenant, runsOnly.id)).map((p) => p.type)).toEqual([
      'run.queued',
      'run.queued',
      'run.queued',
    ])
    expect(await deliveriesOf(other, theirs.id)).toEqual([])

    // The same events, newest first, through the thread's events list; not to another tenant.
    const events = expectJson(
      await call('GET', '/v1/threads/desk-1/events?limit=3'),
      200,
      TenantEventPage,
    )
    expect(events.items.map((e) => e.type)).toEqual([
      'thread.archived',
      'thread.run.rolled_back',
      'thread.run.queued',
    ])
    expect(events.items[0]).toMatchObject({ subject: 'desk-1', actor: 'alice' })
    expect(events.items[0]!.id).toBe(payloads[7]!.data.eventId)
    const rest = expectJson(
      await call('GET', `/v1/threads/desk-1/events?cursor=${events.nextCursor}`),
      200,
      TenantEventPage,
    )
    expect(rest.items).toHaveLength(5)
    expect(rest.nextCursor).toBeNull()
    expectProblem(await call('GET', '/v1/threads/desk-1/events', undefined, outsider), 404)
  })

  it("delivers a schedule's changes and firings to the tenant's subscribed webhook only", async () => {
    const mine = await subscribe(
      token,
      EVENTS.filter((e) => e.startsWith('schedule.')),
    )
    const theirs = await subscribe(
      outsider,
      EVENTS.filter((e) => e.startsWith('schedule.')),
    )

    const s = expectJson(
      await call('POST', '/v1/schedules', {
        target: { graph: 'desk' },
        everyMs: 3_600_000,
        input: { note: 'n' },
      }),
      201,
      ScheduleView,
    )
    const fired = expectJson(await call('POST', `/v1/schedules/${s.id}/trigger`), 201, FiringView)
    // Its first run is still active: overlap `skip` skips the next firing.
    const skipped = expectJson(await call('POST', `/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect(skipped).toMatchObject({ outcome: 'skipped', reason: 'overlap' })
    expectJson(await call('POST', `/v1/schedules/${s.id}/pause`), 200)
    expectJson(await call('POST', `/v1/schedules/${s.id}/pause`), 200)
    expectJson(await call('POST', `/v1/schedules/${s.id}/resume`), 200)
    expect((await call('DELETE', `/v1/schedules/${s.id}`)).statusCode).toBe(204)

    const payloads = await payloadsOf(tenant, mine.id)
    // Pausing a paused schedule changed nothing, so it sent nothing.
    expect(payloads.map((p) => p.type)).toEqual([
      'schedule.created',
      'schedule.fired',
      'schedule.skipped',
      'schedule.paused',
      'schedule.resumed',
      'schedule.deleted',
    ])
    expect(payloads[0]!.data).toMatchObject({
      schedule: s.id,
      target: { graph: 'desk', version: null, thread: null },
      everyMs: 3_600_000,
    })
    expect(payloads[1]!.data).toMatchObject({
      schedule: s.id,
      firingId: fired.id,
      manual: true,
      runId: fired.runId,
      held: false,
    })
    expect(payloads[2]!.data).toMatchObject({ firingId: skipped.id, reason: 'overlap' })
    expect(await deliveriesOf(other, theirs.id)).toEqual([])

    // A deleted schedule's events stay readable, to its tenant only.
    const events = expectJson(
      await call('GET', `/v1/schedules/${s.id}/events`),
      200,
      TenantEventPage,
    )
    expect(events.items.map((e) => e.type)).toEqual([...payloads.map((p) => p.type)].reverse())
    expectProblem(await call('GET', `/v1/schedules/${s.id}/events`, undefined, outsider), 404)
  })

  it('refuses a subscription to an event type that does not exist', async () => {
    const body = { url: `http://${ALLOWED_HOST}/hooks`, events: ['thread.exploded'] }
    const refused = expectProblem(await call('POST', '/v1/webhooks', body), 400)
    expect(refused.errors?.[0]?.path).toMatch(/^\/body\/events/)
  })
})

describe("a thread run's input", () => {
  it('is held to the input schema: in full on the first run, key by key after', async () => {
    expectJson(
      await call('PUT', '/v1/threads/typed-1', { graph: 'typed', strategy: 'enqueue' }),
      201,
    )
    const start = (input: unknown) => call('POST', '/v1/threads/typed-1/runs', { input })

    // The first run's input is its whole state: what a plain run would be refused, it is too.
    const missing = expectProblem(await start({ note: 'hi' }), 400)
    expect(missing.errors).toEqual([{ path: '/body/input/account', message: 'required' }])
    const wrong = expectProblem(await start({ account: 7 }), 400)
    expect(wrong.errors?.map((e) => e.path)).toEqual(['/body/input/account'])
    expectJson(await start({ account: 'acc_1' }), 202)

    // Later runs merge into the thread's state, which has the account: a key given must fit.
    expectJson(await start({ note: 'follow-up' }), 202)
    const later = expectProblem(await start({ note: 3 }), 400)
    expect(later.errors?.map((e) => e.path)).toEqual(['/body/input/note'])
    expect(later.type).toBe(missing.type)
  })
})

describe("a schedule's firing", () => {
  it('skips, naming the problems, when a newer graph version refuses the input', async () => {
    const events = await subscribe(token, ['schedule.skipped', 'schedule.fired'])
    const s = expectJson(
      await call('POST', '/v1/schedules', {
        target: { graph: 'typed' },
        everyMs: 3_600_000,
        overlap: 'allow',
        input: { account: 'acc_2' },
      }),
      201,
      ScheduleView,
    )
    expect(
      expectJson(await call('POST', `/v1/schedules/${s.id}/trigger`), 201, FiringView).outcome,
    ).toBe('started')

    const renamed = {
      ...TYPED,
      input: {
        type: 'object',
        required: ['accountId'],
        properties: { accountId: { type: 'string' } },
        additionalProperties: false,
      },
    }
    expectJson(await call('POST', '/v1/graphs', { name: 'typed', spec: renamed }), 201)
    const firing = expectJson(await call('POST', `/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect(firing).toMatchObject({ outcome: 'skipped', runId: null, reason: 'input-invalid' })

    const payloads = await payloadsOf(tenant, events.id)
    expect(payloads.map((p) => p.type)).toEqual(['schedule.fired', 'schedule.skipped'])
    expect(payloads[1]!.data).toMatchObject({
      schedule: s.id,
      firingId: firing.id,
      reason: 'input-invalid',
      problems: expect.arrayContaining([
        { path: '/accountId', message: 'required' },
        { path: '/account', message: 'unknown field' },
      ]),
    })
  })

  it('skips a thread target whose input a newer version refuses, and starts no run', async () => {
    expectJson(await call('PUT', '/v1/threads/typed-2', { graph: 'typed' }), 201)
    const s = expectJson(
      await call('POST', '/v1/schedules', {
        target: { thread: 'typed-2' },
        everyMs: 3_600_000,
        input: { accountId: 'acc_3' },
      }),
      201,
      ScheduleView,
    )
    const number = {
      ...TYPED,
      input: { type: 'object', properties: { accountId: { type: 'integer' } } },
    }
    expectJson(await call('POST', '/v1/graphs', { name: 'typed', spec: number }), 201)
    const firing = expectJson(await call('POST', `/v1/schedules/${s.id}/trigger`), 201, FiringView)
    expect(firing).toMatchObject({ outcome: 'skipped', reason: 'input-invalid' })
    const runs = expectJson(await call('GET', '/v1/threads/typed-2/runs'), 200, ThreadRunPage)
    expect(runs.items).toEqual([])
  })
})
