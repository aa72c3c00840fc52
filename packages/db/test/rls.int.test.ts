import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes, randomUUID } from 'node:crypto'
import {
  appendAudit,
  appendRunEvent,
  approvalLinkTokens,
  createWebhook,
  decideApproval,
  getRun,
  listApprovals,
  listAudit,
  listRuns,
  loadCheckpointRow,
  openApproval,
  recordDeliveryAttempt,
  watchRunEvents,
  withTenant,
} from '@weave/db'
import {
  type TestDatabase,
  createTestDatabase,
  pgErrorOf,
  randomTenant,
  seedRun,
} from './test-database.js'

// Every table that holds tenant rows; a test below checks the database has no other.
const TABLES = [
  'tenants',
  'graphs',
  'graph_versions',
  'runs',
  'run_events',
  'run_event_watches',
  'approvals',
  'approval_decisions',
  'approval_tokens',
  'audit_events',
  'webhooks',
  'webhook_deliveries',
  'webhook_attempts',
  'weave_kv',
]
// Tables whose isolation the API's and worker's tests show per feature (threads.int,
// schedules.int, audit-anchors.int, thread-schedule-events.int, retention.int); here they are held to row-level security being on, and to
// showing nothing without a tenant.
const FEATURE_TABLES = [
  'threads',
  'schedules',
  'schedule_firings',
  'audit_anchors',
  'audit_pending',
  'tenant_events',
  'retention_policies',
]
const secretsKey = randomBytes(32)

let t: TestDatabase
const a = randomTenant()
const b = randomTenant()
let runOfB: string

beforeAll(async () => {
  t = await createTestDatabase('weave_db_rls')
  for (const tenant of [a, b]) {
    runOfB = await withTenant(t.app, tenant, async (tx) => {
      const run = await seedRun(tx)
      const { webhook } = await createWebhook(tx, secretsKey, {
        url: 'https://hooks.example/in',
        events: ['run.queued'],
        createdBy: 'ops',
      })
      const event = await appendRunEvent(tx, run.id, 'run.queued', { graph: 'g', version: 1 })
      await watchRunEvents(tx, run.id, { watcher: randomUUID(), ttlMs: 60_000 })
      const delivery = await tx.db.execute<{ id: string }>(
        sql`select id from webhook_deliveries where run_id = ${run.id} and event_seq = ${event.seq}`,
      )
      await recordDeliveryAttempt(tx, {
        deliveryId: delivery.rows[0]!.id,
        attemptsBefore: 0,
        statusCode: 200,
        error: null,
        durationMs: 5,
        outcome: 'succeeded',
      })
      const { approval } = await openApproval(tx, {
        runId: run.id,
        step: 'ok',
        seq: 1,
        title: 'Ok?',
      })
      await decideApproval(tx, {
        approvalId: approval.id,
        subject: 'reviewer',
        subjectScopes: [],
        decision: 'approve',
      })
      await approvalLinkTokens(tx, {
        approvalId: approval.id,
        materialHash: approval.materialHash,
        webhookId: webhook.id,
        expiresAt: new Date(Date.now() + 60_000),
        secretsKey,
      })
      await appendAudit(tx, {
        actor: 'x',
        action: 'run.started',
        target: { kind: 'run', id: run.id },
      })
      return run.id
    })
    // A checkpoint row as a tenant-bound store writes it.
    await t.owner.query(
      `insert into weave_kv (tenant_id, ns, key, value) values ($1, '0:checkpoint:g', $2, '{}')`,
      [tenant, runOfB],
    )
  }
})

afterAll(async () => {
  await t?.drop()
})

async function countRows(table: string): Promise<Record<string, number>> {
  const result = await t.owner.query<{ tenant: string; n: string }>(
    `select ${table === 'tenants' ? 'id' : 'tenant_id'} as tenant, count(*) as n from ${table} group by 1`,
  )
  return Object.fromEntries(result.rows.map((r) => [r.tenant, Number(r.n)]))
}

describe('row-level security', () => {
  it('runs pooled queries as the app role', async () => {
    const result = await t.app.pool.query<{ current_user: string }>('select current_user')
    expect(result.rows[0]?.current_user).toBe('weave_app')
  })

  it('shows a tenant none of another tenant’s rows, in every table', async () => {
    for (const table of TABLES) {
      const owned = await countRows(table)
      expect(owned[a], table).toBeGreaterThan(0)
      expect(owned[b], table).toBeGreaterThan(0)
      const seen = await withTenant(t.app, a, async (tx) => {
        const result = await tx.db.execute<{ tenant: string }>(
          sql.raw(`select ${table === 'tenants' ? 'id' : 'tenant_id'} as tenant from ${table}`),
        )
        return result.rows.map((r) => r.tenant)
      })
      expect(seen.length, table).toBe(owned[a])
      expect(new Set(seen), table).toEqual(new Set([a]))
    }
  })

  it('covers every table that holds tenant rows, each with row-level security on', async () => {
    const result = await t.owner.query<{ table_name: string; rls: boolean }>(
      `select c.relname as table_name, c.relrowsecurity as rls
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind = 'r'
         and (c.relname = 'tenants' or exists (
           select 1 from pg_attribute a
           where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped))`,
    )
    expect(result.rows.map((r) => r.table_name).sort()).toEqual(
      [...TABLES, ...FEATURE_TABLES].sort(),
    )
    for (const row of result.rows) expect(row.rls, row.table_name).toBe(true)
  })

  it('keeps a tenant out of another tenant’s checkpoints, whatever key or prefix it forges', async () => {
    const forged = [
      ['0:checkpoint:g', runOfB],
      [`${b.length + 8}:tenant:${b}:checkpoint:g`, runOfB],
    ] as const
    for (const [ns, key] of forged) {
      expect(await loadCheckpointRow(t.app, a, ns, key)).toBeUndefined()
    }
    const seen = await withTenant(t.app, a, (tx) =>
      tx.db.execute(sql`select * from weave_kv where key = ${runOfB}`),
    )
    expect(seen.rows).toEqual([])
    expect(await loadCheckpointRow(t.app, b, '0:checkpoint:g', runOfB)).toEqual({
      value: '{}',
      attemptSeq: null,
    })
  })

  it('refuses to open a transaction without a tenant', async () => {
    await expect(withTenant(t.app, '', async () => 1)).rejects.toThrow(TypeError)
  })

  it('shows nothing when no tenant is set', async () => {
    for (const table of [...TABLES, ...FEATURE_TABLES]) {
      const result = await t.app.pool.query(`select * from ${table}`)
      expect(result.rowCount, table).toBe(0)
    }
  })

  it('refuses to write a row for another tenant', async () => {
    const error = await pgErrorOf(
      withTenant(t.app, a, (tx) => tx.db.execute(sql`insert into tenants (id) values (${b})`)),
    )
    expect(error.message).toMatch(/row-level security/)
  })

  it('does not carry a tenant into the next transaction on the same connection', async () => {
    const app = t.app
    await withTenant(app, a, async () => undefined)
    const client = await app.pool.connect()
    try {
      const setting = await client.query<{ tenant: string | null }>(
        `select current_setting('weave.tenant', true) as tenant`,
      )
      expect(setting.rows[0]?.tenant ?? '').toBe('')
    } finally {
      client.release()
    }
  })

  it('scopes the query functions: another tenant’s run is not found', async () => {
    await withTenant(t.app, a, async (tx) => {
      expect(await getRun(tx, runOfB)).toBeNull()
      const runs = await listRuns(tx)
      expect(runs.items.every((r) => r.tenantId === a)).toBe(true)
      expect((await listApprovals(tx)).items.every((x) => x.tenantId === a)).toBe(true)
      expect((await listAudit(tx)).items.every((x) => x.tenant === a)).toBe(true)
      await expect(appendRunEvent(tx, runOfB, 'run.started', {})).rejects.toMatchObject({
        code: 'run-not-found',
      })
    })
  })
})
