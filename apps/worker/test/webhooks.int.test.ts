import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  QUEUES,
  appendRunEvent,
  cancelApproval,
  createDb,
  createRun,
  createWebhook,
  findApprovalToken,
  jobId,
  listRunEvents,
  listWebhookDeliveries,
  migrateDatabase,
  openApproval,
  registerGraphVersion,
  rotateWebhookSecret,
  webhookRecipient,
  withTenant,
  type Database,
  type OpenApprovalInput,
  type RunEventData,
  type RunEventType,
  type TenantTx,
  type WebhookDelivery,
  type WebhookScope,
} from '@weave/db'
import { createJobQueues, redisConnection, type JobQueues } from '@weave/queue'
import { Worker } from 'bullmq'
import { pino } from 'pino'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'
import { webhooksProcessor } from '../src/processors/webhooks-processor.js'
import { listenForDeliveries, type DeliveryListener } from '../src/webhooks/delivery-listener.js'
import { sweepDeliveries } from '../src/webhooks/delivery-sweep.js'
import { obliterateQueues } from '../../../test/support/queue-cleanup.js'

// Deliveries are made straight with appendRunEvent, as a run's steps make them, so these tests
// drive the delivery path alone: the webhooks processor and the listener that enqueues.
const REDIS = TEST_REDIS_URL
const testDb = testDatabase('weave_webhooks')
const { url, suffix } = testDb
const secretsKey = randomBytes(32)
const PUBLIC_URL = 'https://weave.example.test'
const prefix = `webhooks-test-${suffix}`

/** What the receiver got, and what it answered. */
interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  status: number
}

let database: Database
let queues: JobQueues
let worker: Worker
let listener: DeliveryListener
let receiver: Server
let receiverUrl: string
const received: Received[] = []
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
        received.push({ path, headers: req.headers, body, status })
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
  const port = (receiver.address() as AddressInfo).port
  receiverUrl = `http://127.0.0.1:${port}`
  const connection = redisConnection(REDIS)
  const log = pino({ level: 'silent' })
  queues = createJobQueues({ connection, prefix })
  const processor = webhooksProcessor({
    database,
    secretsKey,
    allow: [`127.0.0.1:${port}`],
    settings: { backoffMs: 100, backoffCapMs: 200, maxAttempts: 5, timeoutMs: 2000 },
    approvalLinks: { publicUrl: PUBLIC_URL },
    log,
  })
  worker = new Worker(QUEUES.webhooks, processor, { connection, prefix, concurrency: 8 })
  listener = listenForDeliveries({ database, queues, log })
  await listener.ready
})

afterAll(async () => {
  for (const release of held) release()
  await listener?.close()
  await worker?.close()
  if (queues) await obliterateQueues(queues)
  await queues?.close()
  await database?.close()
  receiver?.close()
  await testDb.drop()
})

const newTenant = () => `t-${randomBytes(4).toString('hex')}`

function verifies(r: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

async function subscribe(
  tenant: string,
  path: string,
  events: RunEventType[],
  options: { target?: string; scopes?: WebhookScope[] } = {},
) {
  return withTenant(database, tenant, (tx) =>
    createWebhook(tx, secretsKey, {
      url: `${options.target ?? receiverUrl}${path}`,
      events,
      ...(options.scopes ? { scopes: options.scopes } : {}),
      createdBy: 'admin',
    }),
  )
}

async function seedRun(tx: TenantTx): Promise<string> {
  const version = await registerGraphVersion(tx, {
    name: 'g',
    spec: { entry: 'a', steps: { a: { kind: 'set', values: {} } } },
    createdBy: 'author',
  })
  const created = await createRun(tx, {
    graphName: 'g',
    graphVersion: version.version,
    input: {},
    createdBy: 'starter',
  })
  return created.run.id
}

/** A run that emitted one event of `type` (the deliveries come with it). */
async function emit<T extends RunEventType>(
  tenant: string,
  type: T,
  data: RunEventData<T>,
): Promise<string> {
  return withTenant(database, tenant, async (tx) => {
    const runId = await seedRun(tx)
    await appendRunEvent(tx, runId, type, data)
    return runId
  })
}

const COMPLETED = { steps: 1, lastStep: 'a' }

/**
 * A run waiting on an approval, and its `approval.requested` event; `settle` runs in the same
 * transaction, so the approval has already moved on when the delivery is sent.
 */
async function requestApproval(
  tenant: string,
  rules: Pick<OpenApprovalInput, 'approvers' | 'separationOfDuties'> = {},
  settle?: (tx: TenantTx, approvalId: string) => Promise<unknown>,
): Promise<{ runId: string; approvalId: string }> {
  return withTenant(database, tenant, async (tx) => {
    const runId = await seedRun(tx)
    const { approval } = await openApproval(tx, {
      runId,
      step: 'review',
      seq: 1,
      title: 'Ship it?',
      ...rules,
    })
    await appendRunEvent(tx, runId, 'approval.requested', {
      approvalId: approval.id,
      step: 'review',
      title: 'Ship it?',
      details: null,
      materialHash: approval.materialHash,
      required: 1,
      expiresAt: null,
    })
    await settle?.(tx, approval.id)
    return { runId, approvalId: approval.id }
  })
}

const deliveriesOf = (tenant: string, webhookId: string) =>
  withTenant(database, tenant, async (tx) => (await listWebhookDeliveries(tx, webhookId)).items)

const settled = (d: WebhookDelivery[]) => d.length > 0 && d.every((x) => x.status !== 'pending')

const bodyOf = (r: Received) =>
  JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> }

const tokenOf = (link: unknown) => String(link).split('/').at(-1)!

describe('webhook deliveries', () => {
  it('retries a failing receiver until it succeeds: one success, four recorded attempts', async () => {
    const tenant = newTenant()
    const { webhook, secret } = await subscribe(tenant, '/flaky', ['run.completed'])
    failuresLeft.set('/flaky', 3)
    const runId = await emit(tenant, 'run.completed', COMPLETED)

    const [delivery] = await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 4,
      eventType: 'run.completed',
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
    expect(got.every((r) => verifies(r, secret))).toBe(true)
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery!.id]))
    expect(bodyOf(got[3]!)).toMatchObject({
      type: 'run.completed',
      data: { ...COMPLETED, runId, eventSeq: 1 },
    })
  })

  it('records a redirect as a failed attempt without following it, and gives up at the cap', async () => {
    const tenant = newTenant()
    const { webhook } = await subscribe(tenant, '/redirect', ['run.completed'])
    await emit(tenant, 'run.completed', COMPLETED)
    const [delivery] = await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    expect(delivery).toMatchObject({ status: 'failed', attempts: 5 })
    expect(delivery!.attemptLog.map((a) => [a.statusCode, a.error])).toEqual(
      Array.from({ length: 5 }, () => [302, 'redirects are not followed']),
    )
    expect(received.filter((r) => r.path === '/ok')).toEqual([])
  })

  it('refuses, at delivery, an address the allow list does not unlock', async () => {
    const tenant = newTenant()
    const { webhook } = await subscribe(tenant, '/private', ['run.completed'], {
      target: 'http://127.0.0.2:9',
    })
    await emit(tenant, 'run.completed', COMPLETED)
    const [delivery] = await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    expect(delivery?.status).toBe('failed')
    expect(delivery?.attemptLog[0]).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^refused: .*127\.0\.0\.2/),
    })
  })

  it('sweeps pending deliveries that have no live job into the queue, once', async () => {
    const tenant = newTenant()
    const { webhook } = await subscribe(tenant, '/hold', ['run.completed'])
    await emit(tenant, 'run.completed', COMPLETED)
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
      const [delivery] = await deliveriesOf(tenant, webhook.id)
      expect(await sweepDeliveries({ database, queues: lost })).toBeGreaterThanOrEqual(1)
      const id = jobId('deliver', { deliveryId: delivery!.id, tenant })
      expect(await lost.hasLiveJob('webhooks', id)).toBe(true)
      expect(await sweepDeliveries({ database, queues: lost })).toBe(0)
    } finally {
      await obliterateQueues(lost)
      await lost.close()
    }
    held.shift()?.()
    const [done] = await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1 })
  })
})

describe('approval links in deliveries', () => {
  it('adds them for a webhook holding approvals:decide only, never storing a token', async () => {
    const tenant = newTenant()
    const decider = await subscribe(tenant, '/decide', ['approval.requested'], {
      scopes: ['approvals:decide'],
    })
    const plain = await subscribe(tenant, '/plain', ['approval.requested'])
    failuresLeft.set('/decide', 1)
    const { runId, approvalId } = await requestApproval(tenant)
    for (const { webhook } of [decider, plain]) {
      await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    }

    const [failed, sent] = received.filter((r) => r.path === '/decide')
    expect(sent?.status).toBe(200)
    expect(verifies(sent!, decider.secret)).toBe(true)
    const { data } = bodyOf(sent!)
    expect(data).toMatchObject({ approvalId, runId, title: 'Ship it?' })
    const link = new RegExp(`^${PUBLIC_URL}/v1/approval-hooks/[A-Za-z0-9_-]{43}$`)
    expect(data.approveUrl).toMatch(link)
    expect(data.rejectUrl).toMatch(link)
    // A retry carries the same links: the tokens are minted once per (approval, webhook).
    expect(failed!.body).toBe(sent!.body)
    const recipient = webhookRecipient(decider.webhook.id)
    expect(await findApprovalToken(database, tokenOf(data.approveUrl))).toMatchObject({
      tenantId: tenant,
      approvalId,
      decision: 'approve',
      recipient,
    })
    expect(await findApprovalToken(database, tokenOf(data.rejectUrl))).toMatchObject({
      decision: 'reject',
      recipient,
    })

    const [other] = received.filter((r) => r.path === '/plain')
    expect(verifies(other!, plain.secret)).toBe(true)
    expect(bodyOf(other!).data).toMatchObject({ approvalId, runId })
    expect(bodyOf(other!).data).not.toHaveProperty('approveUrl')
    expect(bodyOf(other!).data).not.toHaveProperty('rejectUrl')

    const stored = await withTenant(database, tenant, async (tx) => ({
      events: await listRunEvents(tx, runId),
      payloads: await tx.db.execute<{ payload: unknown }>(
        `select payload from webhook_deliveries where run_id = '${runId}'`,
      ),
    }))
    const everything = JSON.stringify(stored)
    for (const token of [tokenOf(data.approveUrl), tokenOf(data.rejectUrl)]) {
      expect(everything).not.toContain(token)
    }
    expect(everything).not.toContain('approveUrl')
  })

  it.each([
    ['separation of duties', { separationOfDuties: true }],
    ['named approvers', { approvers: { subjects: ['carol'] } }],
    ['approver scopes', { approvers: { scopes: ['finance'] } }],
  ])('adds none when the approval is under %s', async (_rule, rules) => {
    const tenant = newTenant()
    const path = `/rules-${randomBytes(3).toString('hex')}`
    const { webhook } = await subscribe(tenant, path, ['approval.requested'], {
      scopes: ['approvals:decide'],
    })
    const { approvalId } = await requestApproval(tenant, rules)
    await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    const [got] = received.filter((r) => r.path === path)
    expect(bodyOf(got!).data).toMatchObject({ approvalId })
    expect(bodyOf(got!).data).not.toHaveProperty('approveUrl')
  })

  it('adds none once the approval is no longer pending', async () => {
    const tenant = newTenant()
    const { webhook } = await subscribe(tenant, '/settled', ['approval.requested'], {
      scopes: ['approvals:decide'],
    })
    const { approvalId } = await requestApproval(tenant, {}, (tx, id) => cancelApproval(tx, id))
    await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    const [got] = received.filter((r) => r.path === '/settled')
    expect(bodyOf(got!).data).toMatchObject({ approvalId })
    expect(bodyOf(got!).data).not.toHaveProperty('approveUrl')
  })
})

describe('a rotated signing secret', () => {
  it('signs deliveries with the old and the new secret during the grace', async () => {
    const tenant = newTenant()
    const { webhook, secret: old } = await subscribe(tenant, '/rotating', ['run.completed'])
    const rotated = await withTenant(database, tenant, (tx) =>
      rotateWebhookSecret(tx, secretsKey, webhook.id, { graceSeconds: 3600 }),
    )
    await emit(tenant, 'run.completed', COMPLETED)
    await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    const [got] = received.filter((r) => r.path === '/rotating')
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2)
    expect(verifies(got!, rotated!.secret)).toBe(true)
    expect(verifies(got!, old)).toBe(true)
  })

  it('signs them with the new secret only once the grace is over', async () => {
    const tenant = newTenant()
    const { webhook, secret: old } = await subscribe(tenant, '/rotated', ['run.completed'])
    const rotated = await withTenant(database, tenant, (tx) =>
      rotateWebhookSecret(tx, secretsKey, webhook.id, { graceSeconds: 1 }),
    )
    const graceEnds = rotated!.webhook.previousSecretExpiresAt!.getTime()
    await until(
      () => Date.now(),
      (now) => now > graceEnds,
      'the end of the grace',
    )
    await emit(tenant, 'run.completed', COMPLETED)
    await until(() => deliveriesOf(tenant, webhook.id), settled, 'delivery')
    const [got] = received.filter((r) => r.path === '/rotated')
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(1)
    expect(verifies(got!, rotated!.secret)).toBe(true)
    expect(verifies(got!, old)).toBe(false)
  })
})
