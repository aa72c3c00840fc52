import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createWeaveClient,
  verifyWebhook,
  WeaveProblemError,
  WebhookVerificationError,
  type GraphSpec,
  type RunEvent,
  type WeaveClient,
} from '@weave/client'
import {
  startWeave,
  waitForStep,
  waitUntil,
  type WeaveProcesses,
} from '../../../test/support/weave-processes.js'
import { startDroppingProxy, type DroppingProxy } from './support/dropping-proxy.js'

// @weave/client against a real Weave (API and worker processes, Postgres, Redis): the calls a
// business backend makes, each through the generated types, and the failures it must survive.

const ALICE = 'graphs:read graphs:write runs:read runs:write webhooks:manage'
const BOB = 'runs:read approvals:read approvals:decide'
// Low enough that a test can spend a tenant's budget, high enough that no other test comes near it.
const RATE_LIMIT_PER_MINUTE = 100

const GATED: GraphSpec = {
  entry: 'prepare',
  steps: {
    prepare: { kind: 'set', values: { total: 'amount * 2' }, next: 'review' },
    review: { kind: 'approval', title: 'Charge {{ total }}?', next: 'finish' },
    finish: { kind: 'set', values: { done: 'true' } },
  },
}

// The approval step completes once when it yields and once more when it resumes.
const EVENTS_OF_AN_APPROVED_RUN = [
  'run.queued',
  'run.started',
  'step.completed',
  'step.completed',
  'approval.requested',
  'run.waiting',
  'approval.decided',
  'run.resumed',
  'step.completed',
  'step.completed',
  'run.completed',
]

/** An answer of Weave's, kept to be replayed. */
interface Replayed {
  status: number
  headers: Record<string, string>
  body: string
}

const Replayed = {
  async of(response: Response): Promise<Replayed> {
    const headers: Record<string, string> = {}
    for (const name of ['content-type', 'retry-after']) {
      const value = response.headers.get(name)
      if (value !== null) headers[name] = value
    }
    return { status: response.status, headers, body: await response.text() }
  },
}

/** A server answering its requests with `answers`, one each, in order. */
async function startReplay(
  answers: Replayed[],
): Promise<{ url: string; readonly requests: number; close(): Promise<void> }> {
  let requests = 0
  const server = createServer((req, res) => {
    const answer = answers[Math.min(requests++, answers.length - 1)]!
    req.resume()
    res.writeHead(answer.status, answer.headers).end(answer.body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A webhook receiver that keeps each delivery's raw body and headers, as verification needs. */
interface Receiver {
  url: string
  host: string
  deliveries: Array<{ body: string; headers: IncomingHttpHeaders }>
  close(): Promise<void>
}

async function startReceiver(): Promise<Receiver> {
  const deliveries: Receiver['deliveries'] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers })
      res.writeHead(204).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    host: `127.0.0.1:${port}`,
    deliveries,
    async close() {
      server.close()
      await once(server, 'close')
    },
  }
}

describe('@weave/client against a running Weave', () => {
  let weave: WeaveProcesses
  let receiver: Receiver
  let proxy: DroppingProxy

  /** A client of tenant `tenant` as `subject`, straight to the API or through the proxy. */
  async function client(
    tenant: string,
    subject: string,
    scopes: string,
    o: { viaProxy?: boolean } = {},
  ): Promise<WeaveClient> {
    const token = await weave.token(tenant, subject, scopes)
    return createWeaveClient({ baseUrl: o.viaProxy ? proxy.url : weave.baseUrl, token })
  }

  /** Registers the gated graph for `tenant` and returns Alice's and Bob's clients. */
  async function tenantWithGraph(tenant: string, o: { viaProxy?: boolean } = {}) {
    const alice = await client(tenant, 'alice', ALICE, o)
    const bob = await client(tenant, 'bob', BOB)
    await alice.graphs.register('gated', GATED)
    return { alice, bob }
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    weave = await startWeave({
      env: {
        WEAVE_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
        WEAVE_HTTP_ALLOW: receiver.host,
      },
    })
    proxy = await startDroppingProxy(weave.baseUrl)
    // The limited tenant's minute starts now, so by the time its test spends the budget most of
    // the window has passed and the wait its Retry-After asks for is short.
    const limited = await client('t-limited', 'alice', ALICE)
    await limited.runs.list()
  })
  afterAll(async () => {
    await proxy?.close()
    await weave?.stop()
    await receiver?.close()
  })

  it('starts a run once per idempotency key, asking the token provider for each request', async () => {
    const { alice } = await tenantWithGraph('t-start')
    const token = await weave.token('t-start', 'alice', ALICE)
    let asked = 0
    const rotating = createWeaveClient({
      baseUrl: weave.baseUrl,
      token: () => {
        asked++
        return token
      },
    })
    const first = await rotating.runs.start('gated', { amount: 21 }, { idempotencyKey: 'order-1' })
    const again = await rotating.runs.start('gated', { amount: 21 }, { idempotencyKey: 'order-1' })
    expect(again.id).toBe(first.id)
    expect(first).toMatchObject({ graph: 'gated', version: 1 })
    expect(asked).toBe(2)

    const waiting = await alice.runs.wait(first.id, { until: ['waiting'], timeoutMs: 60_000 })
    expect(waiting).toMatchObject({
      status: 'waiting',
      waitingOn: { kind: 'approval', step: 'review' },
    })
  })

  it('reads every event once across a dropped stream, reconnecting with Last-Event-ID, and decides with the material hash', async () => {
    const { alice, bob } = await tenantWithGraph('t-events', { viaProxy: true })
    const run = await alice.runs.start('gated', { amount: 50 })
    const events = alice.runs.events(run.id)
    const seen: RunEvent[] = []
    for await (const event of events) {
      seen.push(event)
      if (event.type === 'run.waiting') break
    }
    // `break` closed that stream; read on with a new one from where it stopped, and cut it.
    const rest = alice.runs.events(run.id, { after: seen.at(-1)!.id })
    const next = rest.next()
    await waitUntil(
      () => proxy.requests.some((r) => r.headers['last-event-id'] === String(seen.at(-1)!.id)),
      30_000,
      'the second stream to open',
    )
    proxy.dropAll()

    const { items } = await bob.approvals.list({ status: 'pending', runId: run.id })
    expect(items).toHaveLength(1)
    const decided = await bob.approvals.decide(items[0]!, 'approve', { comment: 'fine' })
    expect(decided).toMatchObject({
      status: 'approved',
      decisions: [{ by: 'bob', comment: 'fine' }],
    })

    const first = await next
    if (!first.done) seen.push(first.value)
    for await (const event of rest) seen.push(event)
    expect(seen.map((e) => e.type)).toEqual(EVENTS_OF_AN_APPROVED_RUN)
    expect(seen.map((e) => e.id)).toEqual(EVENTS_OF_AN_APPROVED_RUN.map((_, i) => i + 1))
    const streams = proxy.requests.filter((r) => r.path === `/v1/runs/${run.id}/events`)
    // The first stream, the one opened after `break`, and at least one reconnect after the cut,
    // each carrying the id of the last event read before it.
    expect(streams.length).toBeGreaterThanOrEqual(3)
    expect(streams.map((r) => r.headers['last-event-id'])).toEqual(
      expect.arrayContaining(['0', '6']),
    )
    expect(streams.every((r) => r.headers.accept === 'text/event-stream')).toBe(true)
  })

  it('waits for a run to finish over the event stream across a dropped connection', async () => {
    const { alice, bob } = await tenantWithGraph('t-wait', { viaProxy: true })
    const run = await alice.runs.start('gated', { amount: 70 })
    const finished = alice.runs.wait(run.id, { timeoutMs: 90_000 })
    const path = `/v1/runs/${run.id}/events`
    await waitUntil(() => proxy.requests.some((r) => r.path === path), 30_000, 'the stream')
    await waitForStep(weave, await weave.token('t-wait', 'alice', ALICE), run.id, 'review')
    proxy.dropAll()

    const approval = (await bob.approvals.list({ runId: run.id, status: 'pending' })).items[0]!
    await bob.approvals.decide(approval, 'approve')
    const done = await finished
    expect(done).toMatchObject({
      id: run.id,
      status: 'completed',
      state: { total: 140, done: true },
    })
    const streams = proxy.requests.filter((r) => r.path === path)
    expect(streams.length).toBeGreaterThanOrEqual(2)
    expect(streams.at(-1)!.headers['last-event-id']).toMatch(/^\d+$/)
  })

  it('throws a 409 as a typed problem when the material hash is stale, and a 422 naming each invalid field', async () => {
    const { alice, bob } = await tenantWithGraph('t-problems')
    const run = await alice.runs.start('gated', { amount: 5 })
    await alice.runs.wait(run.id, { until: ['waiting'], timeoutMs: 60_000 })
    const approval = (await bob.approvals.list({ runId: run.id })).items[0]!

    const stale = await bob.approvals
      .decide({ id: approval.id, materialHash: '0'.repeat(64) }, 'approve')
      .catch((error: unknown) => error)
    expect(stale).toBeInstanceOf(WeaveProblemError)
    expect(stale).toMatchObject({
      status: 409,
      problem: 'material-mismatch',
      type: '/problems/material-mismatch',
    })
    expect((await bob.approvals.get(approval.id)).status).toBe('pending')

    const invalid = await alice.graphs
      .register('broken', { entry: 'nope', steps: { a: { kind: 'fail', message: 'x' } } })
      .catch((error: unknown) => error)
    expect(invalid).toBeInstanceOf(WeaveProblemError)
    const problem = invalid as WeaveProblemError
    expect(problem.status).toBe(422)
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { path: '/body/spec/entry', message: expect.stringMatching(/nope/) },
      ]),
    )
    expect(problem.requestId).toEqual(expect.any(String))
  })

  it('verifies a real webhook delivery, and refuses it once its body is changed', async () => {
    const { alice } = await tenantWithGraph('t-hooks')
    const { data: webhook, error } = await alice.api.POST('/v1/webhooks', {
      body: { url: receiver.url, events: ['run.waiting'] },
    })
    expect(error).toBeUndefined()
    const run = await alice.runs.start('gated', { amount: 9 })
    await waitUntil(
      () => receiver.deliveries.some((d) => d.body.includes(run.id)),
      60_000,
      'the run.waiting delivery',
    )
    const delivery = receiver.deliveries.find((d) => d.body.includes(run.id))!

    const payload = verifyWebhook(webhook!.secret, delivery.body, delivery.headers)
    expect(payload).toMatchObject({ type: 'run.waiting', data: { runId: run.id } })
    // A rotation's grace: either secret verifies.
    expect(
      verifyWebhook(
        ['whsec_' + btoa('not the secret'), webhook!.secret],
        delivery.body,
        new Headers(delivery.headers as Record<string, string>),
      ),
    ).toMatchObject({ type: 'run.waiting' })

    // One more byte than was signed.
    const forged = `${delivery.body} `
    expect(() => verifyWebhook(webhook!.secret, forged, delivery.headers)).toThrow(
      WebhookVerificationError,
    )
  })

  it('retries after a 429, waiting as long as Retry-After says', async () => {
    const token = await weave.token('t-limited', 'alice', ALICE)
    let listed: Replayed | undefined
    let limited: Replayed | undefined
    while (!limited) {
      const answer = await Replayed.of(
        await fetch(`${weave.baseUrl}/v1/runs`, { headers: { authorization: `Bearer ${token}` } }),
      )
      listed ??= answer
      if (answer.status === 429) limited = answer
    }
    expect(listed!.status).toBe(200)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // Weave's own 429 and list answers, replayed with Retry-After: 1 so the client's wait is short;
    // Weave's window is a minute.
    const replay = await startReplay([
      { ...limited, headers: { ...limited.headers, 'retry-after': '1' } },
      listed!,
    ])
    try {
      const retries: Array<{ status: number; delayMs: number }> = []
      const patient = createWeaveClient({
        baseUrl: replay.url,
        token,
        retry: { onRetry: (retry) => retries.push(retry) },
      })
      const page = await patient.runs.list()
      expect(page.items).toEqual([])
      expect(retries).toEqual([expect.objectContaining({ status: 429, delayMs: 1000 })])
      expect(replay.requests).toBe(2)
    } finally {
      await replay.close()
    }

    const impatient = createWeaveClient({ baseUrl: weave.baseUrl, token, retry: { attempts: 1 } })
    // Weave still limits the tenant: with retries off the 429 itself reaches the caller.
    const refused = await impatient.runs.list().catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 429, problem: 'rate-limited' })
    expect((refused as WeaveProblemError).retryAfterSeconds).toBeGreaterThan(0)
  })
})
