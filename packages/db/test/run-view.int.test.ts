import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  decideApproval,
  getRun,
  listApprovals,
  openApproval,
  readRunWithPending,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

// A GET of a run reads the run and its pending approvals in one statement outside a
// transaction: the functions set the tenant for row-level security themselves. It must read
// what the transactional queries read, and nothing of another tenant.

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_run_view')
})

afterAll(async () => {
  await t?.drop()
})

describe('readRunWithPending', () => {
  it('reads the run as getRun does, with its pending approvals newest first', async () => {
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

    const found = await readRunWithPending(t.app, tenant, run.id)
    const expected = await withTenant(t.app, tenant, (tx) => getRun(tx, run.id))
    const pending = await withTenant(t.app, tenant, (tx) =>
      listApprovals(tx, { runId: run.id, status: 'pending' }),
    )
    expect(found?.run).toEqual(expected)
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
    expect((await readRunWithPending(t.app, tenant, run.id))?.pendingApprovals).toEqual([])
  })

  it("never reads another tenant's run or approvals, and leaves no tenant on the connection", async () => {
    const owner = randomTenant()
    const run = await seedRunIn(t.app, owner)
    await withTenant(t.app, owner, (tx) =>
      openApproval(tx, { runId: run.id, step: 'a', seq: 1, title: 'a' }),
    )
    expect(await readRunWithPending(t.app, randomTenant(), run.id)).toBeNull()
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
      await readRunWithPending(t.app, tenant, '00000000-0000-4000-8000-000000000000'),
    ).toBeNull()
    expect(await readRunWithPending(t.app, tenant, 'not-a-uuid')).toBeNull()
  })
})
