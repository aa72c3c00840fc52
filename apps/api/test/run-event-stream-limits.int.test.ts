import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { Writable, type PassThrough } from 'node:stream'
import { appendRunEvent, createRun, registerGraphVersion, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, type App } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { runEventRoutes } from '../src/routes/run-events.js'
import type { ApiServices } from '../src/services/api-services.js'
import {
  createRunEventStreams,
  type RunEventStreamDeps,
  type RunEventStreams,
} from '../src/services/run-event-stream.js'
import { SECRET, captureLog, testConfig } from './support.js'
import { createTestDatabase, randomTenant, type TestDatabase } from './support/database.js'

let db: TestDatabase
const apps: App[] = []

beforeAll(async () => {
  db = await createTestDatabase('api_sse_limits')
})

afterAll(async () => {
  // fetch keeps spare connections that never carried a request; close would wait for them.
  await Promise.all(
    apps.map((app) => {
      const closing = app.close()
      app.server.closeAllConnections()
      return closing
    }),
  )
  await db?.drop()
})

/** An API process over the test database with these stream limits, listening on a free port. */
async function serve(
  limits: Omit<RunEventStreamDeps, 'database'>,
  wrap: (streams: RunEventStreams) => RunEventStreams = (streams) => streams,
): Promise<{ app: App; services: Pick<ApiServices, 'runEvents'>; base: string; port: number }> {
  // Only the first read matters here; polls and pings would only add noise.
  const runEvents = wrap(
    createRunEventStreams({
      database: db.database,
      pollMs: 60_000,
      heartbeatMs: 60_000,
      ...limits,
    }),
  )
  const services = { runEvents }
  const app = buildApp({
    config: testConfig({ LOG_LEVEL: 'warn', WEAVE_RATE_LIMIT_PER_MINUTE: '0' }),
    log: captureLog().log,
    // The event route alone: an event stream uses no other service.
    services: services as unknown as ApiServices,
    routes: [runEventRoutes],
  })
  apps.push(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  return { app, services, base: `http://127.0.0.1:${port}`, port }
}

function tokenFor(tenant: string): Promise<string> {
  return mintDevToken({
    secret: SECRET,
    tenant,
    subject: 'reader',
    scopes: ['runs:read'],
    audience: 'weave',
    expiresIn: 600,
  })
}

/** A run that is not finished, with `count` events of about `padding` bytes each. */
async function seedRun(tenant: string, count = 1, padding = 1): Promise<string> {
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
    await appendRunEvent(tx, run.id, 'run.queued', { graph: name, version: version.version })
    for (let seq = 1; seq < count; seq++) {
      await appendRunEvent(tx, run.id, 'step.completed', { step: 'x'.repeat(padding), seq })
    }
    return run.id
  })
}

/** Opens an event stream with fetch; `close` drops it. */
async function openStream(base: string, runId: string, token: string) {
  const controller = new AbortController()
  const response = await fetch(`${base}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  })
  if (response.status !== 200) await response.text()
  return { response, close: () => controller.abort() }
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function expectTooMany(response: Response): void {
  expect(response.status).toBe(503)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(response.headers.get('retry-after')).toBe('5')
}

describe('event stream limits', () => {
  it('opens exactly as many streams as the cap when many open at once', async () => {
    const { services, base } = await serve({ maxStreams: 10, maxStreamsPerTenant: 100 })
    const tenant = randomTenant()
    const [runId, token] = [await seedRun(tenant), await tokenFor(tenant)]
    const opened = await Promise.all(
      Array.from({ length: 50 }, () => openStream(base, runId, token)),
    )
    const accepted = opened.filter(({ response }) => response.status === 200)
    expect(accepted).toHaveLength(10)
    for (const { response } of opened.filter((o) => o.response.status !== 200)) {
      expectTooMany(response)
    }
    expect(services.runEvents.size).toBe(10)
    for (const { close } of accepted) close()
    await until(() => services.runEvents.size === 0, 'the streams to be released')
  })

  it('keeps streams for other tenants while one tenant holds its maximum', async () => {
    const { services, base } = await serve({ maxStreams: 10, maxStreamsPerTenant: 3 })
    const [greedy, other] = [randomTenant(), randomTenant()]
    const [greedyRun, greedyToken] = [await seedRun(greedy), await tokenFor(greedy)]
    const held = await Promise.all(
      Array.from({ length: 8 }, () => openStream(base, greedyRun, greedyToken)),
    )
    expect(held.filter(({ response }) => response.status === 200)).toHaveLength(3)
    expectTooMany((await openStream(base, greedyRun, greedyToken)).response)

    const [otherRun, otherToken] = [await seedRun(other), await tokenFor(other)]
    const theirs = await openStream(base, otherRun, otherToken)
    expect(theirs.response.status).toBe(200)
    expect(services.runEvents.size).toBe(4)

    // A released stream gives the tenant its slot back.
    held.find(({ response }) => response.status === 200)!.close()
    await until(() => services.runEvents.size === 3, 'the stream to be released')
    const again = await openStream(base, greedyRun, greedyToken)
    expect(again.response.status).toBe(200)
    for (const stream of [...held, theirs, again]) stream.close()
    await until(() => services.runEvents.size === 0, 'the streams to be released')
  })

  it('ends the stream of a client that stops reading, with its buffered bytes bounded', async () => {
    const EVENTS = 400
    const PADDING = 64 * 1024
    const BOUND = 1024 * 1024
    const tenant = randomTenant()
    const runId = await seedRun(tenant, EVENTS, PADDING)
    const token = await tokenFor(tenant)

    // The server side of the one connection, and the stream the service hands Fastify.
    const serverSockets: Socket[] = []
    let stream: PassThrough | undefined
    let written = 0
    let peakBuffered = 0
    const buffered = () =>
      (stream ? stream.writableLength + stream.readableLength : 0) +
      serverSockets.reduce((sum, socket) => sum + socket.writableLength, 0)
    const { app, services, port } = await serve({ drainTimeoutMs: 300 }, (streams) => ({
      get maxStreams() {
        return streams.maxStreams
      },
      get maxStreamsPerTenant() {
        return streams.maxStreamsPerTenant
      },
      get size() {
        return streams.size
      },
      async open(...args) {
        const opened = await streams.open(...args)
        const write = opened.write.bind(opened) as (chunk: string) => boolean
        opened.write = ((chunk: string) => {
          const isAccepted = write(chunk)
          written += Buffer.byteLength(chunk)
          peakBuffered = Math.max(peakBuffered, buffered())
          return isAccepted
        }) as typeof opened.write
        stream = opened
        return opened
      },
    }))
    app.server.on('connection', (socket: Socket) => serverSockets.push(socket))

    // A client that sends its request, then never reads a byte.
    const client = connect(port, '127.0.0.1')
    client.pause()
    client.write(
      `GET /v1/runs/${runId}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
    )
    try {
      await until(() => stream !== undefined, 'the stream to open')
      await until(
        () => services.runEvents.size === 0 || peakBuffered > BOUND,
        'the stalled stream to be ended',
      )
      expect(peakBuffered).toBeLessThan(BOUND)
      expect(services.runEvents.size).toBe(0)
      await until(() => serverSockets.every((socket) => socket.destroyed), 'the socket to close')
      // It stopped reading events once the socket was full, long before the last one.
      expect(written).toBeLessThan(EVENTS * PADDING)
    } finally {
      client.destroy()
    }
  })

  it('cuts off a finished stream whose final events wait behind a client that stopped reading', async () => {
    const tenant = randomTenant()
    const runId = await withTenant(db.database, tenant, async (tx) => {
      const name = `g-${Math.random().toString(36).slice(2, 8)}`
      const spec = { entry: 'a', steps: { a: { kind: 'set', values: {} } } }
      const version = await registerGraphVersion(tx, { name, spec, createdBy: 'author' })
      const { run } = await createRun(tx, {
        graphName: name,
        graphVersion: version.version,
        input: {},
        createdBy: 'starter',
      })
      await appendRunEvent(tx, run.id, 'run.queued', { graph: name, version: version.version })
      await appendRunEvent(tx, run.id, 'run.completed', { steps: 1, lastStep: 'a' })
      return run.id
    })
    const streams = createRunEventStreams({
      database: db.database,
      pollMs: 60_000,
      heartbeatMs: 60_000,
      drainTimeoutMs: 300,
    })
    const stream = await streams.open(tenant, runId, 0, captureLog().log)
    // A socket that takes the first chunk and no more: the pipe pauses after it, so every later
    // write only queues, small enough that none is refused before the terminal event ends it.
    const stuck = new Writable({ highWaterMark: 1, write: () => undefined })
    stream.pipe(stuck)
    let isClosed = false
    stream.on('close', () => (isClosed = true))
    await until(() => streams.size === 0, 'the stream to end at its terminal event')
    await until(() => isClosed, 'the ended stream to be cut off')
    expect(stream.destroyed).toBe(true)
  })
})
