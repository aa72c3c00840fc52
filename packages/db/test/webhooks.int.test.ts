import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  SecretDecryptionError,
  WEBHOOK_DELIVERY_CHANNEL,
  appendRunEvent,
  createWebhook,
  deleteWebhook,
  getDeliveryToSend,
  getWebhook,
  listPendingDeliveries,
  listWebhookDeliveries,
  listWebhooks,
  readWebhookSecret,
  recordDeliveryAttempt,
  withTenant,
  type Database,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase
const key = randomBytes(32)

beforeAll(async () => {
  t = await createTestDatabase('weave_db_webhooks')
})

afterAll(async () => {
  await t?.drop()
})

const register = (database: Database, tenant: string, events: string[], url = 'https://h.test/') =>
  withTenant(database, tenant, (tx) => createWebhook(tx, key, { url, events, createdBy: 'admin' }))

describe('webhooks', () => {
  it('stores the secret encrypted and reads it back only with the key', async () => {
    const tenant = randomTenant()
    const { webhook, secret } = await register(t.app, tenant, ['run.completed'])
    expect(secret).toMatch(/^whsec_/)
    expect(webhook.secretCiphertext).not.toContain(secret.slice(6))
    const stored = await withTenant(t.app, tenant, (tx) => getWebhook(tx, webhook.id))
    expect(readWebhookSecret(key, stored!)).toBe(secret)
    expect(() => readWebhookSecret(randomBytes(32), stored!)).toThrow(SecretDecryptionError)
  })

  it('lists and deletes only the tenant’s own webhooks', async () => {
    const [a, b] = [randomTenant(), randomTenant()]
    const first = await register(t.app, a, ['run.completed'])
    const second = await register(t.app, a, ['run.failed'])
    const page = await withTenant(t.app, a, (tx) => listWebhooks(tx, { limit: 1 }))
    expect(page.items.map((w) => w.id)).toEqual([second.webhook.id])
    const next = await withTenant(t.app, a, (tx) => listWebhooks(tx, { cursor: page.nextCursor }))
    expect(next.items.map((w) => w.id)).toEqual([first.webhook.id])
    expect(await withTenant(t.app, b, (tx) => getWebhook(tx, first.webhook.id))).toBeNull()
    expect(await withTenant(t.app, b, (tx) => deleteWebhook(tx, first.webhook.id))).toBeNull()
    expect(await withTenant(t.app, a, (tx) => deleteWebhook(tx, first.webhook.id))).not.toBeNull()
    expect(await withTenant(t.app, a, (tx) => deleteWebhook(tx, first.webhook.id))).toBeNull()
    const left = await withTenant(t.app, a, (tx) => listWebhooks(tx))
    expect(left.items.map((w) => w.id)).toEqual([second.webhook.id])
  })
})

describe('webhook deliveries', () => {
  it('creates one delivery per subscribed webhook of the tenant with the event', async () => {
    const [tenant, other] = [randomTenant(), randomTenant()]
    const run = await seedRunIn(t.app, tenant)
    const done = await register(t.app, tenant, ['run.completed', 'run.failed'])
    await register(t.app, tenant, ['run.failed'])
    const gone = await register(t.app, tenant, ['run.completed'])
    await withTenant(t.app, tenant, (tx) => deleteWebhook(tx, gone.webhook.id))
    await register(t.app, other, ['run.completed'])

    const event = await withTenant(t.app, tenant, (tx) =>
      appendRunEvent(tx, run.id, 'run.completed', { steps: 2, lastStep: 'a' }),
    )
    const page = await withTenant(t.app, tenant, (tx) => listWebhookDeliveries(tx, done.webhook.id))
    expect(page.items).toHaveLength(1)
    expect(page.items[0]).toMatchObject({
      webhookId: done.webhook.id,
      eventType: 'run.completed',
      runId: run.id,
      eventSeq: event.seq,
      status: 'pending',
      attempts: 0,
      attemptLog: [],
      payload: {
        type: 'run.completed',
        timestamp: event.at.toISOString(),
        data: { steps: 2, lastStep: 'a', runId: run.id, eventSeq: event.seq },
      },
    })
    const pending = await listPendingDeliveries(t.app, { dueBefore: new Date(Date.now() + 1000) })
    const mine = pending.filter((p) => p.tenant === tenant || p.tenant === other)
    expect(mine.map((p) => p.id)).toEqual([page.items[0]!.id])
  })

  it('creates no delivery when the event rolls back, and announces only committed ones', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const { webhook } = await register(t.app, tenant, ['step.completed'])
    const listener = new pg.Client({ connectionString: t.url })
    await listener.connect()
    const heard: string[] = []
    listener.on('notification', (m) => heard.push(m.payload ?? ''))
    await listener.query(`LISTEN ${WEBHOOK_DELIVERY_CHANNEL}`)
    try {
      await expect(
        withTenant(t.app, tenant, async (tx) => {
          await appendRunEvent(tx, run.id, 'step.completed', { step: 'a', seq: 1 })
          throw new Error('roll back')
        }),
      ).rejects.toThrow('roll back')
      await withTenant(t.app, tenant, (tx) =>
        appendRunEvent(tx, run.id, 'step.completed', { step: 'b', seq: 1 }),
      )
      const page = await withTenant(t.app, tenant, (tx) => listWebhookDeliveries(tx, webhook.id))
      expect(page.items.map((d) => (d.payload as { data: { step: string } }).data.step)).toEqual([
        'b',
      ])
      const deadline = Date.now() + 5000
      while (heard.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(heard.map((p) => JSON.parse(p) as unknown)).toEqual([
        { tenant, id: page.items[0]!.id },
      ])
    } finally {
      await listener.end()
    }
  })

  it('records each attempt once, with a compare-and-set on the attempt count', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const { webhook } = await register(t.app, tenant, ['run.failed'])
    await withTenant(t.app, tenant, (tx) =>
      appendRunEvent(tx, run.id, 'run.failed', {
        name: 'Error',
        message: 'x',
        step: 'a',
        stopReason: 'error',
      }),
    )
    const [delivery] = (
      await withTenant(t.app, tenant, (tx) => listWebhookDeliveries(tx, webhook.id))
    ).items
    const id = delivery!.id
    const retryAt = new Date(Date.now() + 60_000)
    const first = await withTenant(t.app, tenant, (tx) =>
      recordDeliveryAttempt(tx, {
        deliveryId: id,
        attemptsBefore: 0,
        statusCode: 500,
        error: null,
        durationMs: 12.4,
        outcome: 'pending',
        nextAttemptAt: retryAt,
      }),
    )
    expect(first).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: retryAt })
    const stale = await withTenant(t.app, tenant, (tx) =>
      recordDeliveryAttempt(tx, {
        deliveryId: id,
        attemptsBefore: 0,
        statusCode: 200,
        error: null,
        durationMs: 3,
        outcome: 'succeeded',
      }),
    )
    expect(stale).toBeNull()
    await withTenant(t.app, tenant, (tx) =>
      recordDeliveryAttempt(tx, {
        deliveryId: id,
        attemptsBefore: 1,
        statusCode: null,
        error: 'connect ECONNREFUSED',
        durationMs: 1,
        outcome: 'failed',
      }),
    )
    const toSend = await withTenant(t.app, tenant, (tx) => getDeliveryToSend(tx, id))
    expect(toSend?.delivery).toMatchObject({ status: 'failed', attempts: 2 })
    expect(toSend?.webhook?.id).toBe(webhook.id)
    const [listed] = (
      await withTenant(t.app, tenant, (tx) => listWebhookDeliveries(tx, webhook.id))
    ).items
    expect(listed?.attemptLog.map((a) => [a.attempt, a.statusCode, a.error, a.durationMs])).toEqual(
      [
        [1, 500, null, 12],
        [2, null, 'connect ECONNREFUSED', 1],
      ],
    )
    expect(await withTenant(t.app, randomTenant(), (tx) => getDeliveryToSend(tx, id))).toBeNull()
  })

  it('fails the pending deliveries of a deleted webhook', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const { webhook } = await register(t.app, tenant, ['run.cancelled'])
    await withTenant(t.app, tenant, (tx) =>
      appendRunEvent(tx, run.id, 'run.cancelled', { by: 'alice' }),
    )
    await withTenant(t.app, tenant, (tx) => deleteWebhook(tx, webhook.id))
    const [delivery] = (
      await withTenant(t.app, tenant, (tx) => listWebhookDeliveries(tx, webhook.id))
    ).items
    expect(delivery?.status).toBe('failed')
    const toSend = await withTenant(t.app, tenant, (tx) => getDeliveryToSend(tx, delivery!.id))
    expect(toSend?.webhook).toBeNull()
  })
})
