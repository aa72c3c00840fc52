import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDb, type Database, withTenant } from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant } from './test-database.js'

// withTenant opens its transaction with BEGIN and the role and tenant settings in one
// simple-protocol query, the tenant as an escaped literal. A tenant must reach the setting
// exactly, whatever it holds, and never outlive its transaction on the pooled connection.

let t: TestDatabase
// One connection, so every transaction below runs on the one the previous one used.
let single: Database

beforeAll(async () => {
  t = await createTestDatabase('weave_db_with_tenant')
  single = createDb({ connectionString: t.url, max: 1 })
})

afterAll(async () => {
  await single?.close()
  await t?.drop()
})

const settings = sql`select current_user as role, current_setting('weave.tenant', true) as tenant`

describe('withTenant', () => {
  it('sets a tenant holding quotes, backslashes and statements exactly, as the app role', async () => {
    for (const tenant of [
      "o'brien",
      'back\\slash\\',
      "x', true); drop table runs; --",
      '$$; select 1; $$',
    ]) {
      const seen = await withTenant(single, tenant, (tx) => tx.db.execute(settings))
      expect(seen.rows[0]).toEqual({ role: 'weave_app', tenant })
    }
    const tables = await t.owner.query(`select to_regclass('public.runs') as runs`)
    expect(tables.rows[0].runs).toBe('runs')
  })

  it('leaves no tenant on the connection after a commit or a rollback', async () => {
    const tenant = randomTenant()
    await withTenant(single, tenant, async (tx) => {
      await tx.db.execute(sql`insert into tenants (id) values (${tenant})`)
    })
    const after = await single.pool.query(
      `select current_setting('weave.tenant', true) as tenant, current_user as role`,
    )
    expect(after.rows[0].tenant ?? '').toBe('')
    await expect(
      withTenant(single, randomTenant(), async () => {
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    const afterRollback = await single.pool.query(
      `select current_setting('weave.tenant', true) as tenant`,
    )
    expect(afterRollback.rows[0].tenant ?? '').toBe('')
  })

  it('rolls back what a failing transaction wrote, and the connection serves the next one', async () => {
    const tenant = randomTenant()
    await expect(
      withTenant(single, tenant, async (tx) => {
        await tx.db.execute(sql`insert into tenants (id) values (${tenant})`)
        throw new Error('after the insert')
      }),
    ).rejects.toThrow('after the insert')
    const kept = await t.owner.query('select id from tenants where id = $1', [tenant])
    expect(kept.rows).toEqual([])
    // A statement Postgres refuses aborts the transaction; the rollback makes it usable again.
    await expect(
      withTenant(single, tenant, (tx) => tx.db.execute(sql`select 1 / 0`)),
    ).rejects.toThrow()
    const next = await withTenant(single, tenant, (tx) => tx.db.execute(settings))
    expect(next.rows[0]).toEqual({ role: 'weave_app', tenant })
  })
})
