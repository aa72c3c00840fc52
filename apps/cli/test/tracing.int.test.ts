import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SpanKind } from '@opentelemetry/api'
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { createLogger, loadConfig, mintDevToken } from '@weave/api'
import { migrateDatabase } from '@weave/db'
import { loadWorkerConfig, runWorker } from '@weave/worker'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import { composeApi, type ComposedApi } from '../src/compose-api.js'
import { watchDependencies, type DependencyWatch } from '../src/dependency-watch.js'
import { startTracing, type Tracing } from '../src/tracing.js'

const SECRET = 'tracing-test-secret-of-at-least-32-bytes'
const suffix = randomBytes(4).toString('hex')
const databaseName = `weave_cli_tracing_${suffix}`
const tenant = `t-${suffix}`

// The caller's trace: the API's span must continue it, and everything after the API too.
const CALLER_TRACE = randomBytes(16).toString('hex')
const CALLER_SPAN = randomBytes(8).toString('hex')

interface Received {
  path: string
  headers: IncomingHttpHeaders
}

const exporter = new InMemorySpanExporter()
const received: Received[] = []
let tracing: Tracing
let server: Server
let api: ComposedApi
let worker: Awaited<ReturnType<typeof runWorker>>
let watch: DependencyWatch
let baseUrl: string
let port: number
let token: string

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Polls `read` until `ok` holds; fails naming `what` after 20 s. */
async function until<T>(read: () => T, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const value = read()
    if (ok(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const spans = () => exporter.getFinishedSpans()
const serviceOf = (span: ReadableSpan) => span.resource.attributes['service.name']
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

function only(name: string, where: (s: ReadableSpan) => boolean = () => true): ReadableSpan {
  const found = spans().filter((s) => s.name === name && where(s))
  expect(found, `spans named "${name}"`).toHaveLength(1)
  return found[0]!
}

/** Sends an authorized request to the API; fails the test unless it succeeds. */
async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300)
  return JSON.parse(text) as Record<string, unknown>
}

beforeAll(async () => {
  tracing = startTracing(['weave-api', 'weave-worker'], { exporter })!
  server = createServer((req, res) => {
    received.push({ path: req.url ?? '', headers: req.headers })
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port

  const databaseUrl = Object.assign(new URL(TEST_DATABASE_URL), {
    pathname: `/${databaseName}`,
  }).toString()
  await migrateDatabase({ connectionString: databaseUrl })
  const env = {
    WEAVE_DATABASE_URL: databaseUrl,
    WEAVE_MIGRATE_DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    WEAVE_QUEUE_PREFIX: `tracing-${suffix}`,
    WEAVE_JWT_SECRET: SECRET,
    WEAVE_HTTP_ALLOW: `127.0.0.1:${port}`,
    WEAVE_API_METRICS: 'off',
    WEAVE_RECONCILE_INTERVAL_MS: '0',
    LOG_LEVEL: 'silent',
  }
  const config = loadConfig(env)
  const log = createLogger({ level: 'silent' })
  watch = watchDependencies(config, log)
  worker = await runWorker(loadWorkerConfig(env), log, {
    health: watch.health,
    tracer: tracing.tracerOf('weave-worker'),
  })
  api = composeApi(config, log, watch, { tracer: tracing.tracerOf('weave-api') })
  baseUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })

  token = await mintDevToken({
    secret: SECRET,
    tenant,
    subject: 'tracer',
    scopes: [
      'graphs:write',
      'runs:write',
      'runs:read',
      'webhooks:manage',
      'approvals:read',
      'approvals:decide',
    ],
    audience: 'weave',
    expiresIn: '10m',
  })
  await call('POST', '/v1/webhooks', {
    url: `http://127.0.0.1:${port}/hook`,
    events: ['run.completed'],
  })
  await call('POST', '/v1/graphs', {
    name: 'traced',
    spec: {
      entry: 'call',
      steps: {
        call: {
          kind: 'http',
          method: 'POST',
          url: `http://127.0.0.1:${port}/target`,
          body: '{"n": n}',
          saveAs: 'answer',
        },
      },
    },
  })
  exporter.reset()
  await call(
    'POST',
    '/v1/runs',
    { graph: 'traced', input: { n: 1 } },
    { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'caller=1' },
  )
  // Every span of the run and of its delivery has ended once the delivery's span has.
  await until(
    () => spans().filter((s) => s.name === 'deliver webhook'),
    (found) => found.length > 0,
    'the webhook delivery span',
  )
})

afterAll(async () => {
  await api?.close()
  if (worker) {
    const { runs, timers, webhooks, maintenance } = worker.queues
    for (const queue of [runs, timers, webhooks, maintenance]) {
      await queue.obliterate({ force: true })
    }
    await worker.close()
  }
  await watch?.close()
  await tracing?.shutdown()
  await new Promise((resolve) => server?.close(resolve))
  await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
})

describe('tracing from the API through the queue to the worker', () => {
  it("continues the caller's trace in the API's span for POST /v1/runs", () => {
    const request = only('POST /v1/runs')
    expect(request.kind).toBe(SpanKind.SERVER)
    expect(serviceOf(request)).toBe('weave-api')
    expect(request.spanContext().traceId).toBe(CALLER_TRACE)
    expect(parentOf(request)).toBe(CALLER_SPAN)
    expect(request.attributes).toMatchObject({
      'http.route': '/v1/runs',
      'http.response.status_code': 202,
    })
  })

  it('nests the job, the run execution, its step and the step call under the request', () => {
    const request = only('POST /v1/runs')
    const job = only('process run', (s) => s.spanContext().traceId === CALLER_TRACE)
    const run = only('execute run')
    const step = only('step call')
    const client = only(
      'POST',
      (s) => s.kind === SpanKind.CLIENT && parentOf(s) === step.spanContext().spanId,
    )
    expect(job.kind).toBe(SpanKind.CONSUMER)
    expect(parentOf(job)).toBe(request.spanContext().spanId)
    expect(parentOf(run)).toBe(job.spanContext().spanId)
    expect(parentOf(step)).toBe(run.spanContext().spanId)
    for (const span of [job, run, step, client]) {
      expect(span.spanContext().traceId).toBe(CALLER_TRACE)
      expect(serviceOf(span)).toBe('weave-worker')
    }
    expect(run.attributes).toMatchObject({ 'weave.run.outcome': 'completed', 'weave.run.steps': 1 })
    expect(step.attributes).toMatchObject({ 'weave.step.name': 'call', 'weave.step.seq': 1 })
    expect(client.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
    })
  })

  it("sends the step call's span as the target's traceparent, with the caller's tracestate", () => {
    const step = only('step call')
    const client = only('POST', (s) => parentOf(s) === step.spanContext().spanId)
    const target = received.filter((r) => r.path === '/target')
    expect(target).toHaveLength(1)
    expect(target[0]!.headers.traceparent).toBe(
      `00-${CALLER_TRACE}-${client.spanContext().spanId}-01`,
    )
    expect(target[0]!.headers.tracestate).toBe('caller=1')
  })

  it('sends the webhook delivery the run caused in its trace, under the span that created it', () => {
    const delivery = only('deliver webhook')
    expect(serviceOf(delivery)).toBe('weave-worker')
    expect(delivery.attributes['weave.delivery.outcome']).toBe('succeeded')
    expect(delivery.spanContext().traceId).toBe(CALLER_TRACE)
    // run.completed is appended, and its delivery created, while the run executes.
    const run = only('execute run')
    expect(parentOf(delivery)).toBe(run.spanContext().spanId)
    // The job that sent it was enqueued from Postgres, outside the trace: the span links to it.
    const job = only('process deliver')
    expect(delivery.links.map((l) => l.context.spanId)).toEqual([job.spanContext().spanId])
    const post = only('POST', (s) => parentOf(s) === delivery.spanContext().spanId)
    expect(post.kind).toBe(SpanKind.CLIENT)
    expect(post.attributes['http.response.status_code']).toBe(200)
    const hook = received.filter((r) => r.path === '/hook')
    expect(hook).toHaveLength(1)
    expect(hook[0]!.headers.traceparent).toBe(`00-${CALLER_TRACE}-${post.spanContext().spanId}-01`)
  })
})

describe('tracing a run resumed by a decision', () => {
  it("continues the deciding request's trace, not the starting one's", async () => {
    await call('POST', '/v1/graphs', {
      name: 'gated',
      spec: {
        entry: 'review',
        steps: {
          review: { kind: 'approval', title: 'Call?', next: 'after' },
          after: { kind: 'http', method: 'POST', url: `http://127.0.0.1:${port}/after` },
        },
      },
    })
    const started = randomBytes(16).toString('hex')
    const run = await call(
      'POST',
      '/v1/runs',
      { graph: 'gated' },
      { traceparent: `00-${started}-${randomBytes(8).toString('hex')}-01` },
    )
    let waiting: Record<string, unknown> = {}
    const deadline = Date.now() + 20_000
    while (waiting.status !== 'waiting') {
      if (Date.now() > deadline) throw new Error('timed out waiting for the approval')
      await new Promise((resolve) => setTimeout(resolve, 50))
      waiting = await call('GET', `/v1/runs/${String(run.id)}`)
    }
    const approvalId = (waiting.waitingOn as { approvalId: string }).approvalId
    const decided = randomBytes(16).toString('hex')
    await call(
      'POST',
      `/v1/approvals/${approvalId}/decision`,
      { decision: 'approve' },
      { traceparent: `00-${decided}-${randomBytes(8).toString('hex')}-01` },
    )
    await until(
      () => received.filter((r) => r.path === '/after'),
      (found) => found.length === 1,
      "the resumed run's call",
    )
    const decision = only('POST /v1/approvals/:id/decision')
    expect(decision.spanContext().traceId).toBe(decided)
    const resume = await until(
      () => spans().filter((s) => s.name === 'process resume'),
      (found) => found.length === 1,
      'the resume job span',
    )
    expect(resume[0]!.spanContext().traceId).toBe(decided)
    expect(parentOf(resume[0]!)).toBe(decision.spanContext().spanId)
    const step = only('step after')
    expect(step.spanContext().traceId).toBe(decided)
    const after = received.find((r) => r.path === '/after')!
    expect(after.headers.traceparent).toMatch(new RegExp(`^00-${decided}-[0-9a-f]{16}-01$`))
    expect(
      spans().some((s) => s.name === 'step review' && s.spanContext().traceId === started),
    ).toBe(true)
  })
})
