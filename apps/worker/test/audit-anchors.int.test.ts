import { createServer, type Server } from 'node:http'
import { createPublicKey } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import {
  appendAudit,
  createAuditSigner,
  createDb,
  deriveAuditSigningKey,
  isAnchorSignedBy,
  listAuditAnchors,
  migrateDatabase,
  verifyAudit,
  withTenant,
  type Database,
  type SignedAnchor,
} from '@weave/db'
import { redisConnection } from '@weave/queue'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAnchorPass } from '../src/audit-anchors.js'
import { startWorker } from '../src/start-worker.js'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'

const testDb = testDatabase('weave_audit_anchor_job')
const signingKey = deriveAuditSigningKey('the development secret of this test file')
const signer = createAuditSigner(signingKey)
const publicKey = createPublicKey(signingKey)
const log = pino({ level: 'silent' })
let database: Database

/** The anchor webhook: answers `status` and keeps what it accepted, in order. */
let status = 200
const received: Array<SignedAnchor & { id: string }> = []
let server: Server
let webhookUrl: string

beforeAll(async () => {
  await migrateDatabase({ connectionString: testDb.url })
  database = createDb({ connectionString: testDb.url, max: 4 })
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    req.on('end', () => {
      if (status === 200) received.push(JSON.parse(body) as SignedAnchor & { id: string })
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/anchors`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await database?.close()
  await testDb.drop()
})

async function append(tenant: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await withTenant(database, tenant, (tx) =>
      appendAudit(tx, {
        actor: 'alice',
        action: 'run.started',
        target: { kind: 'run', id: `r${i}` },
      }),
    )
  }
}

const anchorsOf = async (tenant: string) =>
  (await withTenant(database, tenant, (tx) => listAuditAnchors(tx))).items

describe('the anchor pass', () => {
  it('anchors each grown chain once, and sends anchors in order once the webhook accepts them', async () => {
    const a = `a-${testDb.suffix}`
    const b = `b-${testDb.suffix}`
    await append(a, 2)
    await append(b, 1)
    status = 503
    expect(await runAnchorPass({ database, log, signer, webhookUrl })).toEqual({
      anchored: 2,
      published: 0,
    })
    expect(received).toEqual([])
    // Nothing grew: nothing new is signed; the webhook is back, so both anchors go out.
    status = 200
    expect(await runAnchorPass({ database, log, signer, webhookUrl })).toEqual({
      anchored: 0,
      published: 2,
    })
    expect(received.map((anchor) => [anchor.tenant, anchor.seq]).sort()).toEqual([
      [a, 2],
      [b, 1],
    ])
    for (const anchor of received) expect(isAnchorSignedBy(anchor, publicKey)).toBe(true)
    expect((await anchorsOf(a))[0]?.publishedAt).not.toBeNull()
    // Only a chain that grew is anchored again.
    await append(a, 1)
    expect(await runAnchorPass({ database, log, signer, webhookUrl })).toEqual({
      anchored: 1,
      published: 1,
    })
    expect(received.at(-1)).toMatchObject({ tenant: a, seq: 3 })
    expect(await withTenant(database, a, (tx) => verifyAudit(tx, { publicKey }))).toMatchObject({
      ok: true,
      checked: 3,
      anchor: { seq: 3 },
    })
  })
})

describe('the anchor schedule', () => {
  it('fires the anchor pass through the maintenance queue', async () => {
    const tenant = `s-${testDb.suffix}`
    await append(tenant, 4)
    const worker = startWorker({
      database,
      connection: redisConnection(TEST_REDIS_URL),
      prefix: `weave-anchor-${testDb.suffix}`,
      log,
      reconcileIntervalMs: 0,
      auditAnchors: { signingKey, intervalMs: 200, webhookUrl },
    })
    try {
      const anchors = await until(
        () => anchorsOf(tenant),
        (items) => items.some((anchor) => anchor.publishedAt !== null),
        'a scheduled anchor, sent',
      )
      expect(anchors[0]).toMatchObject({ tenant, seq: 4, createdBy: 'system' })
    } finally {
      // The schedules and their jobs, so nothing of this prefix stays in the shared Redis.
      const { runs, timers, webhooks, maintenance } = worker.queues
      await Promise.all(
        [runs, timers, webhooks, maintenance].map((queue) => queue.obliterate({ force: true })),
      )
      await worker.close()
    }
  })
})
