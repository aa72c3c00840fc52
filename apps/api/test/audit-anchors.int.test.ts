import { randomBytes } from 'node:crypto'
import {
  GraphRegistry,
  deriveAuditSigningKey,
  parseAuditPublicKey,
  verifyAuditExport,
} from '@weave/db'
import { createJobQueues, redisConnection, type JobQueues } from '@weave/queue'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import type { App } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { AuditAnchorPage, AuditAnchorView, AuditKeys } from '../src/schemas/audit-anchors.js'
import { AuditVerification } from '../src/schemas/audit.js'
import { createApiServices } from '../src/services/api-services.js'
import { SECRET } from './support.js'
import { createTestDatabase, randomTenant, type TestDatabase } from './support/database.js'
import { buildTestApp, callerFor, expectJson, expectProblem, type Call } from './support/harness.js'
import { obliterateQueues } from '../../../test/support/queue-cleanup.js'

const signingKey = deriveAuditSigningKey('the signing secret of the audit anchor tests')

let db: TestDatabase
let queues: JobQueues
let app: App
let unsigned: App
let owner: pg.Pool
let call: (c: Call) => ReturnType<ReturnType<typeof callerFor>>

beforeAll(async () => {
  db = await createTestDatabase('api_audit_anchors')
  owner = new pg.Pool({ connectionString: db.url, max: 2 })
  queues = createJobQueues({
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `weave-test-${randomBytes(6).toString('hex')}`,
  })
  const deps = { database: db.database, jobs: queues, registry: new GraphRegistry(db.database) }
  app = await buildTestApp(createApiServices({ ...deps, auditSigningKey: signingKey }))
  unsigned = await buildTestApp(createApiServices(deps))
  call = callerFor(app)
})

afterAll(async () => {
  await app?.close()
  await unsigned?.close()
  if (queues) await obliterateQueues(queues)
  await queues?.close()
  await owner?.end()
  await db?.drop()
})

const token = (tenant: string, scopes: readonly string[] = ['audit:read', 'graphs:write']) =>
  mintDevToken({
    secret: SECRET,
    tenant,
    subject: 'auditor',
    scopes: [...scopes],
    audience: 'weave',
    expiresIn: 600,
  })

/** Writes `n` audit events for the tenant through the API (graph registrations). */
async function audited(tenant: string, n: number): Promise<void> {
  const bearer = await token(tenant)
  for (let i = 0; i < n; i++) {
    const response = await call({
      method: 'POST',
      url: '/v1/graphs',
      token: bearer,
      body: {
        name: `g-${randomBytes(4).toString('hex')}`,
        spec: { entry: 'a', steps: { a: { kind: 'set', values: { i: `${i}` } } } },
      },
    })
    expect(response.statusCode, response.body).toBe(201)
  }
}

async function verify(tenant: string) {
  return expectJson(
    await call({ method: 'GET', url: '/v1/audit/verify', token: await token(tenant) }),
    200,
    AuditVerification,
  )
}

async function anchorNow(tenant: string) {
  return expectJson(
    await call({ method: 'POST', url: '/v1/audit/anchors', token: await anchorer(tenant) }),
    201,
    AuditAnchorView,
  )
}

/** A token that may anchor the tenant's chain as well as read it. */
const anchorer = (tenant: string) => token(tenant, ['audit:read', 'audit:anchor'])

/** Runs SQL as the tables' owner with the audit table's guards off, as an attacker with DDL would. */
async function tamper(statements: string[], tenant: string): Promise<void> {
  const client = await owner.connect()
  try {
    await client.query('begin')
    await client.query('alter table audit_events disable trigger user')
    for (const statement of statements) await client.query(statement, [tenant])
    await client.query('alter table audit_events enable trigger user')
    await client.query('commit')
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
}

async function exported(tenant: string): Promise<string> {
  const response = await call({
    method: 'GET',
    url: '/v1/audit/export',
    token: await token(tenant),
  })
  expect(response.statusCode, response.body).toBe(200)
  expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/)
  return response.body
}

describe('audit anchors over HTTP', () => {
  it('publishes the signing key, and none when this server has none', async () => {
    const tenant = randomTenant()
    const keys = expectJson(
      await call({ method: 'GET', url: '/v1/audit/keys', token: await token(tenant) }),
      200,
      AuditKeys,
    )
    expect(keys.keys).toHaveLength(1)
    expect(keys.keys[0]).toMatchObject({ algorithm: 'Ed25519' })
    const none = await callerFor(unsigned)({
      method: 'GET',
      url: '/v1/audit/keys',
      token: await token(tenant),
    })
    expect(none.json()).toEqual({ keys: [] })
    expectProblem(
      await callerFor(unsigned)({
        method: 'POST',
        url: '/v1/audit/anchors',
        token: await anchorer(tenant),
      }),
      503,
    )
  })

  it('refuses to anchor on demand with audit:read alone: 403 naming audit:anchor, nothing stored', async () => {
    const tenant = randomTenant()
    await audited(tenant, 2)
    const refused = await call({
      method: 'POST',
      url: '/v1/audit/anchors',
      token: await token(tenant, ['audit:read']),
    })
    expect(expectProblem(refused, 403, 'forbidden').detail).toContain('audit:anchor')
    const { rows } = await owner.query(
      'select count(*)::int as n from audit_anchors where tenant_id = $1',
      [tenant],
    )
    expect(rows[0].n).toBe(0)
    expect(await anchorNow(tenant)).toMatchObject({ tenant, seq: 2 })
  })

  it('answers 409 to an anchor of a chain cut below its newest anchor, storing none', async () => {
    const tenant = randomTenant()
    await audited(tenant, 3)
    await anchorNow(tenant)
    await tamper(['delete from audit_events where tenant_id = $1 and seq = 3'], tenant)
    const refused = await call({
      method: 'POST',
      url: '/v1/audit/anchors',
      token: await anchorer(tenant),
    })
    expect(expectProblem(refused, 409, 'conflict').detail).toContain(
      'shorter than its newest anchor',
    )
    const { rows } = await owner.query(
      'select count(*)::int as n from audit_anchors where tenant_id = $1',
      [tenant],
    )
    expect(rows[0].n).toBe(1)
  })

  it('anchors on demand, lists anchors newest first, and verifies against the newest', async () => {
    const tenant = randomTenant()
    await audited(tenant, 3)
    const first = await anchorNow(tenant)
    expect(first).toMatchObject({ tenant, seq: 3, createdBy: 'auditor', publishedAt: null })
    await audited(tenant, 1)
    const second = await anchorNow(tenant)
    const page = expectJson(
      await call({ method: 'GET', url: '/v1/audit/anchors?limit=1', token: await token(tenant) }),
      200,
      AuditAnchorPage,
    )
    expect(page.items.map((a) => a.id)).toEqual([second.id])
    expect(page.nextCursor).not.toBeNull()
    expect(await verify(tenant)).toEqual({
      ok: true,
      checked: 4,
      anchor: { seq: 4, hash: second.hash, at: second.at, keyId: second.keyId },
    })
    // Another tenant sees none of them.
    const other = expectJson(
      await call({ method: 'GET', url: '/v1/audit/anchors', token: await token(randomTenant()) }),
      200,
      AuditAnchorPage,
    )
    expect(other.items).toEqual([])
  })

  it.each([
    {
      what: 'the newest events deleted',
      statements: ['delete from audit_events where tenant_id = $1 and seq >= 4'],
      problem: 'truncated',
      firstBadSeq: 4,
    },
    {
      what: 'an event in the middle deleted',
      statements: ['delete from audit_events where tenant_id = $1 and seq = 2'],
      problem: 'gap',
      firstBadSeq: 2,
    },
    {
      what: 'an event edited',
      statements: ["update audit_events set actor = 'mallory' where tenant_id = $1 and seq = 3"],
      problem: 'edited',
      firstBadSeq: 3,
    },
    {
      what: 'two events swapped',
      statements: [
        'update audit_events set seq = -2 where tenant_id = $1 and seq = 2',
        'update audit_events set seq = 2 where tenant_id = $1 and seq = 3',
        'update audit_events set seq = 3 where tenant_id = $1 and seq = -2',
      ],
      problem: 'reordered',
      firstBadSeq: 2,
    },
  ])(
    'reports $what, naming the first bad seq, online and in an export verified offline',
    async ({ statements, problem, firstBadSeq }) => {
      const tenant = randomTenant()
      await audited(tenant, 5)
      await anchorNow(tenant)
      const before = await exported(tenant)
      const publicKey = parseAuditPublicKey(
        (
          await callerFor(app)({ method: 'GET', url: '/v1/audit/keys', token: await token(tenant) })
        ).json<{
          keys: Array<{ publicKey: string }>
        }>().keys[0]!.publicKey,
      )
      expect(await verifyAuditExport(before.split('\n'), { publicKey })).toMatchObject({
        ok: true,
        checked: 5,
        tenant,
      })
      await tamper(statements, tenant)
      expect(await verify(tenant)).toMatchObject({ ok: false, problem, firstBadSeq })
      expect(
        await verifyAuditExport((await exported(tenant)).split('\n'), { publicKey }),
      ).toMatchObject({
        ok: false,
        problem,
        firstBadSeq,
      })
    },
  )

  it('finds a truncation offline even when the anchor was deleted too, given the webhook’s copy', async () => {
    const tenant = randomTenant()
    await audited(tenant, 3)
    const anchor = await anchorNow(tenant)
    await tamper(['delete from audit_events where tenant_id = $1 and seq = 3'], tenant)
    await owner.query('delete from audit_anchors where tenant_id = $1', [tenant])
    const publicKey = parseAuditPublicKey(
      (await call({ method: 'GET', url: '/v1/audit/keys', token: await token(tenant) })).json<{
        keys: Array<{ pem: string }>
      }>().keys[0]!.pem,
    )
    const lines = (await exported(tenant)).split('\n')
    expect(await verifyAuditExport(lines, { publicKey })).toMatchObject({ ok: true, checked: 2 })
    expect(await verifyAuditExport(lines, { publicKey, anchors: [anchor] })).toMatchObject({
      ok: false,
      problem: 'truncated',
      firstBadSeq: 3,
    })
  })
})
