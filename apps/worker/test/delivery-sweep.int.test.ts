import { randomBytes } from 'node:crypto'
import {
  createDb,
  createRun,
  createWebhook,
  jobId,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type Database,
} from '@weave/db'
import type { JobQueues } from '@weave/queue'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sweepDeliveries } from '../src/webhooks/delivery-sweep.js'
import { testDatabase } from './support/test-services.js'

// The sweep must find a delivery whose job was lost however many pending deliveries with live
// jobs are due before it: it pages through them with a cursor instead of looking at one page.
const DELIVERIES = 1_200

const testDb = testDatabase('weave_delivery_sweep')
const tenant = `t-${testDb.suffix}`
let database: Database
let owner: pg.Pool
let deliveryIds: string[]

beforeAll(async () => {
  await migrateDatabase({ connectionString: testDb.url })
  database = createDb({ connectionString: testDb.url, max: 4 })
  owner = new pg.Pool({ connectionString: testDb.url, max: 1 })
  const { runId, webhookId } = await withTenant(database, tenant, async (tx) => {
    const version = await registerGraphVersion(tx, {
      name: 'g',
      spec: { entry: 'a', steps: { a: { kind: 'set', values: { x: '1' } } } },
      createdBy: 'author',
    })
    const { run } = await createRun(tx, {
      graphName: 'g',
      graphVersion: version.version,
      input: {},
      createdBy: 'starter',
    })
    const { webhook } = await createWebhook(tx, randomBytes(32), {
      url: 'https://hooks.example.test/in',
      events: ['run.completed'],
      createdBy: 'author',
    })
    return { runId: run.id, webhookId: webhook.id }
  })
  // Due one second apart, the last one latest.
  const { rows } = await owner.query<{ id: string }>(
    `insert into webhook_deliveries
       (tenant_id, webhook_id, event_type, run_id, event_seq, payload, next_attempt_at)
     select $1, $2, 'run.completed', $3, g, '{}'::jsonb, now() - interval '2 hours' + g * interval '1 second'
     from generate_series(1, $4::int) g
     returning id`,
    [tenant, webhookId, runId, DELIVERIES],
  )
  deliveryIds = rows.map((r) => r.id)
})

afterAll(async () => {
  await database?.close()
  owner?.on('error', () => undefined)
  await owner?.end()
  await testDb.drop()
})

/** Queues in which every delivery's job is alive except `lost`'s; records what is enqueued. */
function queuesLosing(lost: string) {
  const enqueued: string[] = []
  const queues = {
    hasLiveJob: async (_queue: string, id: string) =>
      id !== jobId('deliver', { deliveryId: lost, tenant }),
    webhooks: { remove: async () => 0 },
    enqueue: async (_kind: string, payload: { deliveryId: string }) => {
      enqueued.push(payload.deliveryId)
    },
  } as unknown as Pick<JobQueues, 'enqueue' | 'hasLiveJob' | 'webhooks'>
  return { queues, enqueued }
}

describe('the delivery sweep', () => {
  it('enqueues the one delivery that lost its job behind a thousand whose jobs are alive', async () => {
    const lost = deliveryIds.at(-1)!
    const { queues, enqueued } = queuesLosing(lost)
    expect(await sweepDeliveries({ database, queues })).toBe(1)
    expect(enqueued).toEqual([lost])
  })

  it('looks at no more rows in one pass than it is given', async () => {
    const { queues, enqueued } = queuesLosing(deliveryIds.at(-1)!)
    expect(await sweepDeliveries({ database, queues }, new Date(), 600)).toBe(0)
    expect(enqueued).toEqual([])
  })
})
