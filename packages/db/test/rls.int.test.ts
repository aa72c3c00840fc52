import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  appendAudit,
  appendRunEvent,
  decideApproval,
  getRun,
  listApprovals,
  listAudit,
  listRuns,
  openApproval,
  withTenant,
} from '@weave/db'
import {
  type TestDatabase,
  createTestDatabase,
  pgErrorOf,
  randomTenant,
  seedRun,
} from './test-database.js'

const TABLES = [
  'tenants',
  'graphs',
  'graph_versions',
  'runs',
  'run_events',
  'approvals',
  'approval_decisions',
  'audit_events',
]

let t: TestDatabase
const a = randomTenant()
const b = randomTenant()
let runOfB: string

beforeAll(async () => {
  t = await createTestDatabase('weave_db_rls')
  for (const tenant of [a, b]) {
    runOfB = await withTenant(t.app, tenant, async (tx) => {
      const run = await seedRun(tx)
      await appendRunEvent(tx, run.id, 'run.queued')
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
      await appendAudit(tx, {
        actor: 'x',
        action: 'run.started',
        target: { kind: 'run', id: run.id },
      })
      return run.id
    })
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

  it('refuses to open a transaction without a tenant', async () => {
    await expect(withTenant(t.app, '', async () => 1)).rejects.toThrow(TypeError)
  })

  it('shows nothing when no tenant is set', async () => {
    for (const table of TABLES) {
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
      await expect(appendRunEvent(tx, runOfB, 'run.started')).rejects.toMatchObject({
        code: 'run-not-found',
      })
    })
  })
})
