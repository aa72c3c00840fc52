import type { AddressInfo } from 'node:net'
import {
  appendRunEvent,
  createRun,
  registerGraphVersion,
  transitionRun,
  withTenant,
} from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSse, type SseStream } from '../../../test/support/sse-client.js'
import { buildApp, type App } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import type { Scope } from '../src/auth/principal.js'
import { resourceRoutes } from '../src/routes/index.js'
import { createApiServices, type ApiServices } from '../src/services/api-services.js'
import { createRunEventWakeups, type RunEventWakeups } from '../src/services/run-event-wakeups.js'
import { SECRET, captureLog, testConfig } from './support.js'
import { createTestDatabase, randomTenant, type TestDatabase } from './support/database.js'

const HEARTBEAT_MS = 150
let db: TestDatabase
let wakeups: RunEventWakeups
let services: ApiServices
let app: App
let base: string
const tenant = randomTenant()
let token: string

beforeAll(async () => {
  db = await createTestDatabase('api_run_event_stream')
  wakeups = createRunEventWakeups({ connectionString: db.url, log: captureLog().log })
  await wakeups.listening
  services = createApiServices({
    database: db.database,
    jobs: { enqueue: async () => true },
    // Polls too rarely to explain a live event: only the LISTEN wake-up can deliver one in time.
    runEvents: { wakeups, pollMs: 60_000, heartbeatMs: HEARTBEAT_MS, maxStreams: 2 },
  })
  app = buildApp({
    config: testConfig({ LOG_LEVEL: 'warn', WEAVE_RATE_LIMIT_PER_MINUTE: '0' }),
    log: captureLog().log,
    services,
    routes: resourceRoutes,
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  token = await tokenFor(tenant, ['runs:read'])
})

afterAll(async () => {
  await app?.close()
  await wakeups?.close()
  await db?.drop()
})

function tokenFor(t: string, scopes: readonly Scope[]): Promise<string> {
  return mintDevToken({
    secret: SECRET,
    tenant: t,
    subject: 'reader',
    scopes,
    audience: 'weave',
    expiresIn: 600,
  })
}

/** Valid payloads of the event types these tests append. */
const EVENT_DATA = {
  'run.queued': { graph: 'g', version: 1 },
  'run.started': {},
  'step.completed': { step: 'a', seq: 1 },
  'run.completed': { steps: 1, lastStep: 'a' },
}
type SeededType = keyof typeof EVENT_DATA

/** A run with the given events already appended, as a worker would have. */
async function seedRun(types: SeededType[]): Promise<string> {
  return withTenant(db.database, tenant, async (tx) => {
    const name = `g-${Math.random().toString(36).slice(2, 8)}`
    const spec = { entry: 'a', steps: { a: { kind: 'set', values: {} } } }
    const version = await registerGraphVersion(tx, { name, spec, createdBy: 'author' })
    const { run } = await createRun(tx, {
      graphName: name,
      graphVersion: version.version,
      input: {},
      createdBy: 'starter',
    })
    for (const type of types) await append(run.id, type, tx)
    if (types.includes('run.completed')) {
      await transitionRun(tx, run.id, ['queued'], 'running')
      await transitionRun(tx, run.id, ['running'], 'completed')
    }
    return run.id
  })
}

async function append(
  runId: string,
  type: SeededType,
  tx?: Parameters<Parameters<typeof withTenant>[2]>[0],
): Promise<void> {
  const data = EVENT_DATA[type]
  if (tx) await appendRunEvent(tx, runId, type, data)
  else await withTenant(db.database, tenant, (t) => appendRunEvent(t, runId, type, data))
}

function stream(
  runId: string,
  headers: Record<string, string> = {},
  query = '',
): Promise<SseStream> {
  return openSse(`${base}/v1/runs/${runId}/events${query}`, {
    authorization: `Bearer ${token}`,
    ...headers,
  })
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('GET /v1/runs/{id}/events as an event stream', () => {
  it('sends every event in order with its seq as id, then ends after the terminal event', async () => {
    const runId = await seedRun(['run.queued', 'run.started', 'step.completed', 'run.completed'])
    const sse = await stream(runId, { 'x-request-id': 'sse-order-1' })
    expect(sse.status).toBe(200)
    expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(sse.headers.get('cache-control')).toBe('no-store')
    expect(sse.headers.get('x-request-id')).toBe('sse-order-1')
    const messages = await sse.rest()
    expect(messages.map((m) => [m.id, m.event])).toEqual([
      ['1', 'run.queued'],
      ['2', 'run.started'],
      ['3', 'step.completed'],
      ['4', 'run.completed'],
    ])
    const first = JSON.parse(messages[0]!.data)
    expect(first).toEqual({
      id: 1,
      type: 'run.queued',
      data: { graph: 'g', version: 1 },
      at: expect.stringMatching(/Z$/),
    })
    expect(sse.retry).toBe(2000)
  })

  it('replays only the events after Last-Event-ID, which wins over ?lastEventId', async () => {
    const runId = await seedRun(['run.queued', 'run.started', 'step.completed', 'run.completed'])
    const byHeader = await (await stream(runId, { 'last-event-id': '2' }, '?lastEventId=1')).rest()
    expect(byHeader.map((m) => m.id)).toEqual(['3', '4'])
    const byQuery = await (await stream(runId, {}, '?lastEventId=3')).rest()
    expect(byQuery.map((m) => m.id)).toEqual(['4'])
    // Reconnecting after the terminal event: nothing more, the stream ends at once.
    expect(await (await stream(runId, { 'last-event-id': '4' })).rest()).toEqual([])
  })

  it('delivers events live as they commit, with heartbeats while idle', async () => {
    const runId = await seedRun(['run.queued'])
    const sse = await stream(runId)
    expect((await sse.next())?.event).toBe('run.queued')
    await sse.comment((text) => text === 'ping', HEARTBEAT_MS * 10)

    const latencies: number[] = []
    for (const type of ['run.started', 'step.completed', 'run.completed'] as const) {
      const committed = Date.now()
      await append(runId, type)
      const message = await sse.next(5_000)
      expect(message?.event).toBe(type)
      latencies.push(message!.at - committed)
    }
    expect(await sse.next()).toBeNull()
    // Far below the 60 s poll: the LISTEN wake-up delivered them.
    expect(Math.max(...latencies)).toBeLessThan(2_000)
  })

  it('ends a stream when the token that opened it expires, and resumes with a fresh one', async () => {
    const runId = await seedRun(['run.queued'])
    const before = services.runEvents.size
    const shortLived = await mintDevToken({
      secret: SECRET,
      tenant,
      subject: 'reader',
      scopes: ['runs:read'],
      audience: 'weave',
      expiresIn: 2,
    })
    const sse = await stream(runId, { authorization: `Bearer ${shortLived}` })
    expect((await sse.next())?.event).toBe('run.queued')
    // The run is not over, so only the expiry can end the stream.
    await sse.comment((text) => text === 'token expired', 10_000)
    expect(await sse.next(10_000)).toBeNull()
    await until(() => services.runEvents.size === before, 'the stream to be released')
    await append(runId, 'run.started')
    const resumed = await stream(runId, { 'last-event-id': '1' })
    expect((await resumed.next())?.event).toBe('run.started')
    resumed.close()
  })

  it('ends at once, without failing, a stream opened by a token that expired within the skew', async () => {
    const runId = await seedRun(['run.queued'])
    const justExpired = await mintDevToken({
      secret: SECRET,
      tenant,
      subject: 'reader',
      scopes: ['runs:read'],
      audience: 'weave',
      expiresIn: '-5s',
    })
    const sse = await stream(runId, { authorization: `Bearer ${justExpired}` })
    await sse.comment((text) => text === 'token expired', 10_000)
    expect(await sse.next(10_000)).toBeNull()
  })

  it('stops streaming when the client goes away', async () => {
    const runId = await seedRun(['run.queued'])
    const before = services.runEvents.size
    const sse = await stream(runId)
    await sse.next()
    expect(services.runEvents.size).toBe(before + 1)
    sse.close()
    await until(() => services.runEvents.size === before, 'the stream to be released')
  })

  it('refuses streams beyond the per-process limit with 503 and Retry-After', async () => {
    const runId = await seedRun(['run.queued'])
    const open = [await stream(runId), await stream(runId)]
    for (const sse of open) await sse.next()
    const refused = await fetch(`${base}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(refused.headers.get('retry-after')).toBe('5')
    for (const sse of open) sse.close()
    await until(() => services.runEvents.size === 0, 'the streams to be released')
    const again = await stream(runId)
    expect((await again.next())?.event).toBe('run.queued')
    again.close()
  })

  it("answers 404 for another tenant's run, 403 without runs:read and 400 for a bad id", async () => {
    const runId = await seedRun(['run.queued'])
    const other = await tokenFor(randomTenant(), ['runs:read'])
    const asOther = await fetch(`${base}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${other}`, accept: 'text/event-stream' },
    })
    expect(asOther.status).toBe(404)
    expect(((await asOther.json()) as { type: string }).type).toBe('/problems/run-not-found')
    const unscoped = await tokenFor(tenant, ['runs:write'])
    const forbidden = await fetch(`${base}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${unscoped}` },
    })
    expect(forbidden.status).toBe(403)
    const badId = await fetch(`${base}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': 'x' },
    })
    expect(badId.status).toBe(400)
  })

  it('ends open streams when the server closes, so shutdown does not wait on them', async () => {
    const runId = await seedRun(['run.queued'])
    const sse = await stream(runId)
    await sse.next()
    await app.close()
    expect(await sse.next()).toBeNull()
  })
})
