import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  decideApproval,
  getRun,
  listApprovals,
  openApproval,
  readRunForView,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

// A GET of a run reads the run, its pending approvals and its latest checkpoint in one statement
// outside a transaction: the function sets the tenant for row-level security itself. It must
// read what the transactional queries read, and nothing of another tenant.

// How the tenant's PgStore stores the kernel's `checkpoint:<graph>` namespace.
const NS_HEAD = '0:checkpoint:'

/** Stores `value` at (ns, key) for `tenant`, as the owner (past row-level security). */
async function storeKv(tenant: string, ns: string, key: string, value: string): Promise<void> {
  await t.owner.query('insert into weave_kv (tenant_id, ns, key, value) values ($1, $2, $3, $4)', [
    tenant,
    ns,
    key,
    value,
  ])
}

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_run_view')
})

afterAll(async () => {
  await t?.drop()
})

describe('readRunForView', () => {
  it('reads the run as getRun does, without its input and lease, with its pending approvals newest first', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const open = (step: string) =>
      withTenant(t.app, tenant, (tx) =>
        openApproval(tx, { runId: run.id, step, seq: 1, title: step }),
      )
    const first = await open('a')
    const second = await open('b')
    const third = await open('c')
    await withTenant(t.app, tenant, (tx) =>
      decideApproval(tx, {
        approvalId: second.approval.id,
        subject: 'bob',
        subjectScopes: [],
        decision: 'approve',
      }),
    )

    const found = await readRunForView(t.app, tenant, run.id, NS_HEAD)
    const expected = await withTenant(t.app, tenant, (tx) => getRun(tx, run.id))
    const pending = await withTenant(t.app, tenant, (tx) =>
      listApprovals(tx, { runId: run.id, status: 'pending' }),
    )
    // Every column the view reads is as getRun maps it; the input and the lease are not sent.
    expect(expected).toMatchObject(found!.run)
    expect(Object.keys(found!.run)).toEqual(
      expect.arrayContaining(['id', 'graphName', 'status', 'steps', 'createdAt', 'held']),
    )
    expect(found?.run).not.toHaveProperty('input')
    expect(found?.run).not.toHaveProperty('leaseToken')
    expect(found?.run.createdAt).toBeInstanceOf(Date)
    expect(found?.pendingApprovals).toEqual(pending.items.map((a) => a.id))
    expect(found?.pendingApprovals).toHaveLength(2)
    expect(new Set(found?.pendingApprovals)).toEqual(
      new Set([first.approval.id, third.approval.id]),
    )
  })

  it('gives an empty list for a run without pending approvals', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    expect((await readRunForView(t.app, tenant, run.id, NS_HEAD))?.pendingApprovals).toEqual([])
  })

  it('reads no checkpoint for a run without one', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    expect((await readRunForView(t.app, tenant, run.id, NS_HEAD))?.checkpoint).toBeNull()
  })

  it("reads the run's latest key in its graph's namespace, exactly, and nothing else", async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant, { graph: 'g' })
    const other = await seedRunIn(t.app, tenant, { graph: 'g2' })
    await storeKv(tenant, `${NS_HEAD}g`, `${run.id}/000000000001`, 'history')
    await storeKv(tenant, `${NS_HEAD}g`, `${run.id}/sub`, 'child run')
    await storeKv(tenant, `${NS_HEAD}g2`, run.id, 'another graph')
    await storeKv(tenant, '1:xcheckpoint:g', run.id, 'another store prefix')
    await storeKv(randomTenant(), `${NS_HEAD}g`, run.id, 'another tenant')
    expect((await readRunForView(t.app, tenant, run.id, NS_HEAD))?.checkpoint).toBeNull()
    await storeKv(tenant, `${NS_HEAD}g`, run.id, '')
    await storeKv(tenant, `${NS_HEAD}g2`, other.id, '{"latest":true}')
    // The exact stored text, the empty string too (a store's get returns it as it is).
    expect((await readRunForView(t.app, tenant, run.id, NS_HEAD))?.checkpoint).toBe('')
    expect((await readRunForView(t.app, tenant, other.id, NS_HEAD))?.checkpoint).toBe(
      '{"latest":true}',
    )
    // The namespace is the caller's: a store with prefix `x` names it `1:xcheckpoint:<graph>`.
    expect((await readRunForView(t.app, tenant, run.id, '1:xcheckpoint:'))?.checkpoint).toBe(
      'another store prefix',
    )
  })

  it("never reads another tenant's run or approvals, and leaves no tenant on the connection", async () => {
    const owner = randomTenant()
    const run = await seedRunIn(t.app, owner)
    await withTenant(t.app, owner, (tx) =>
      openApproval(tx, { runId: run.id, step: 'a', seq: 1, title: 'a' }),
    )
    expect(await readRunForView(t.app, randomTenant(), run.id, NS_HEAD)).toBeNull()
    // The tenant was local to the statement's transaction: a later query on any pooled
    // connection sees none, so row-level security hides every run.
    const clients = await Promise.all([t.app.pool.connect(), t.app.pool.connect()])
    try {
      for (const c of clients) {
        const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM runs')
        expect(rows[0]?.n).toBe('0')
      }
    } finally {
      for (const c of clients) c.release()
    }
  })

  it('returns null for an unknown id and for one that is not a UUID', async () => {
    const tenant = randomTenant()
    expect(
      await readRunForView(t.app, tenant, '00000000-0000-4000-8000-000000000000', NS_HEAD),
    ).toBeNull()
    expect(await readRunForView(t.app, tenant, 'not-a-uuid', NS_HEAD)).toBeNull()
  })
})
