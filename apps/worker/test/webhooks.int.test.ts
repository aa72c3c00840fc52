import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createDb,
  createRun,
  createWebhook,
  findApprovalToken,
  listRunEvents,
  listWebhookDeliveries,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type Database,
  type WebhookDelivery,
} from '@weave/db'
import { createJobQueues, redisConnection } from '@weave/queue'
import { pino } from 'pino'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'
import { startWorker, type RunningWorker } from '../src/index.js'
import { sweepDeliveries } from '../src/webhooks/delivery-sweep.js'

const REDIS = TEST_REDIS_URL
const testDb = testDatabase('weave_webhooks')
const { url, suffix } = testDb
const secretsKey = randomBytes(32)
const PUBLIC_URL = 'https://weave.example.test'

/** What the receiver got: the request, whether its signature verified, and what it answered. */
interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  isVerified: boolean
  status: number
}

let database: Database
let worker: RunningWorker
let receiver: Server
let receiverUrl: string
const received: Received[] = []
const secrets = new Map<string, string>()
const failuresLeft = new Map<string, number>()
const held: Array<() => void> = []

beforeAll(async () => {
  await migrateDatabase({ connectionString: url })
  database = createDb({ connectionString: url, max: 12 })
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? '/'
      const body = Buffer.concat(chunks).toString('utf8')
      const answer = (status: number, headers: Record<string, string> = {}) => {
        received.push({
          path,
          headers: req.headers,
          body,
          isVerified: verify(path, body, req.headers),
          status,
        })
        res.writeHead(status, headers).end()
      }
      if (path === '/hold') {
        held.push(() => answer(200))
        return
      }
      if (path === '/redirect') return answer(302, { location: `${receiverUrl}/ok` })
      const left = failuresLeft.get(path) ?? 0
      failuresLeft.set(path, left - 1)
      answer(left > 0 ? 500 : 200)
    })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  worker = startWorker({
    database,
    connection: redisConnection(REDIS),
    prefix: `webhooks-test-${suffix}`,
    log: pino({ level: 'silent' }),
    reconcileIntervalMs: 0,
    http: { allow: [`127.0.0.1:${(receiver.address() as AddressInfo).port}`] },
    secretsKey,
    publicUrl: PUBLIC_URL,
    webhooks: { backoffMs: 100, backoffCapMs: 200, maxAttempts: 5, timeoutMs: 2000 },
  })
})

afterAll(async () => {
  for (const release of held) release()
  await worker?.queues.webhooks.obliterate({ force: true })
  await worker?.queues.runs.obliterate({ force: true })
  await worker?.queues.timers.obliterate({ force: true })
  await worker?.close()
  await database?.close()
  receiver?.close()
  await testDb.drop()
})

function verify(path: string, body: string, headers: IncomingHttpHeaders): boolean {
  const secret = secrets.get(path)
  if (!secret) return false
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

async function subscribe(tenant: string, path: string, events: string[], target = receiverUrl) {
  const { webhook, secret } = await withTenant(database, tenant, (tx) =>
    createWebhook(tx, secretsKey, { url: `${target}${path}`, events, createdBy: 'admin' }),
  )
  secrets.set(path, secret)
  return webhook.id
}

async function startRun(tenant: string, spec: unknown): Promise<string> {
  const run = await withTenant(database, tenant, async (tx) => {
    const v = await registerGraphVersion(tx, { name: 'g', spec, createdBy: 'author' })
    return (
      await createRun(tx, {
        graphName: 'g',
        graphVersion: v.version,
        input: {},
        createdBy: 'starter',
      })
    ).run
  })
  await worker.queues.enqueueRun({ runId: run.id, tenant })
  return run.id
}

const deliveriesOf = (tenant: string, webhookId: string) =>
  withTenant(database, tenant, async (tx) => (await listWebhookDeliveries(tx, webhookId)).items)

const settled = (d: WebhookDelivery[]) => d.length > 0 && d.every((x) => x.status !== 'pending')

const APPROVAL_SPEC = {
  entry: 'review',
  steps: { review: { kind: 'approval', title: 'Ship it?', next: null } },
}

describe('webhook deliveries', () => {
  it('retries a failing receiver until it succeeds: one success, four recorded attempts', async () => {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const webhookId = await subscribe(tenant, '/flaky', ['approval.requested'])
    failuresLeft.set('/flaky', 3)
    const runId = await startRun(tenant, APPROVAL_SPEC)

    const [delivery] = await until(() => deliveriesOf(tenant, webhookId), settled, 'delivery')
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 4,
      eventType: 'approval.requested',
      runId,
    })
    expect(delivery!.attemptLog.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, null],
      [2, 500, null],
      [3, 500, null],
      [4, 200, null],
    ])
    const got = received.filter((r) => r.path === '/flaky')
    expect(got.map((r) => r.status)).toEqual([500, 500, 500, 200])
    expect(got.every((r) => r.isVerified)).toBe(true)
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery!.id]))

    const payload = JSON.parse(got[3]!.body) as { type: string; data: Record<string, unknown> }
    expect(payload).toMatchObject({
      type: 'approval.requested',
      data: { runId, title: 'Ship it?' },
    })
    const { approveUrl, rejectUrl } = payload.data as { approveUrl: string; rejectUrl: string }
    expect(approveUrl).toMatch(new RegExp(`^${PUBLIC_URL}/v1/approval-hooks/[A-Za-z0-9_-]{43}$`))
    const token = await findApprovalToken(database, approveUrl.split('/').at(-1)!)
    expect(token).toMatchObject({
      tenantId: tenant,
      approvalId: payload.data.approvalId,
      decision: 'approve',
    })
    expect((await findApprovalToken(database, rejectUrl.split('/').at(-1)!))?.decision).toBe(
      'reject',
    )
    const events = await withTenant(database, tenant, (tx) => listRunEvents(tx, runId))
    expect(events.find((e) => e.type === 'approval.requested')?.data).toMatchObject({
      approveUrl,
      rejectUrl,
    })
  })

  it('records a redirect as a failed attempt without following it, and gives up at the cap', async () => {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const webhookId = await subscribe(tenant, '/redirect', ['run.completed'])
    await startRun(tenant, { entry: 'a', steps: { a: { kind: 'set', values: { x: '1' } } } })
    const [delivery] = await until(() => deliveriesOf(tenant, webhookId), settled, 'delivery')
    expect(delivery).toMatchObject({ status: 'failed', attempts: 5 })
    expect(delivery!.attemptLog.map((a) => [a.statusCode, a.error])).toEqual(
      Array.from({ length: 5 }, () => [302, 'redirects are not followed']),
    )
    expect(received.filter((r) => r.path === '/ok')).toEqual([])
  })

  it('refuses, at delivery, an address the allow list does not unlock', async () => {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const webhookId = await subscribe(tenant, '/private', ['run.completed'], 'http://127.0.0.2:9')
    await startRun(tenant, { entry: 'a', steps: { a: { kind: 'set', values: { x: '1' } } } })
    const [delivery] = await until(() => deliveriesOf(tenant, webhookId), settled, 'delivery')
    expect(delivery?.status).toBe('failed')
    expect(delivery?.attemptLog[0]).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^refused: .*127\.0\.0\.2/),
    })
  })

  it('sweeps pending deliveries that have no live job into the queue, once', async () => {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const webhookId = await subscribe(tenant, '/hold', ['run.completed'])
    await startRun(tenant, { entry: 'a', steps: { a: { kind: 'set', values: { x: '1' } } } })
    await until(
      () => Promise.resolve(held.length),
      (n) => n > 0,
      'the held request',
    )
    // Another prefix stands for a Redis that lost the job: the sweep finds no live job there.
    const lost = createJobQueues({
      connection: redisConnection(REDIS),
      prefix: `webhooks-lost-${suffix}`,
    })
    try {
      const [delivery] = await deliveriesOf(tenant, webhookId)
      expect(await sweepDeliveries({ database, queues: lost })).toBeGreaterThanOrEqual(1)
      expect(await lost.hasLiveJob('webhooks', `delivery-${delivery!.id}`)).toBe(true)
      const again = await sweepDeliveries({ database, queues: lost })
      expect(again).toBe(0)
    } finally {
      await lost.webhooks.obliterate({ force: true })
      await lost.close()
    }
    held.shift()?.()
    const [done] = await until(() => deliveriesOf(tenant, webhookId), settled, 'delivery')
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1 })
  })
})
