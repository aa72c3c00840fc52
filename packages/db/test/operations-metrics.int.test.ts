import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cancelRunApprovals,
  countRunsByStatus,
  openApproval,
  pendingApprovalStats,
  transitionRun,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_opmetrics')
})

afterAll(async () => {
  await t?.drop()
})

describe('operations metrics', () => {
  it('counts runs by status across tenants, as the app role, with 0 for unused statuses', async () => {
    expect(await countRunsByStatus(t.app)).toEqual({
      queued: 0,
      running: 0,
      waiting: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
    })
    const [a, b] = [randomTenant(), randomTenant()]
    await seedRunIn(t.app, a)
    await seedRunIn(t.app, b)
    const done = await seedRunIn(t.app, b)
    await withTenant(t.app, b, async (tx) => {
      await transitionRun(tx, done.id, ['queued'], 'running')
      await transitionRun(tx, done.id, ['running'], 'completed')
    })
    expect(await countRunsByStatus(t.app)).toMatchObject({ queued: 2, running: 0, completed: 1 })
  })

  it('counts pending approvals across tenants with the time the oldest was opened', async () => {
    expect(await pendingApprovalStats(t.app)).toEqual({ pending: 0, oldestCreatedAt: null })
    const [a, b] = [randomTenant(), randomTenant()]
    const runA = await seedRunIn(t.app, a)
    const runB = await seedRunIn(t.app, b)
    const before = Date.now()
    const first = await withTenant(t.app, a, (tx) =>
      openApproval(tx, { runId: runA.id, step: 'review', seq: 1, title: 'first' }),
    )
    await withTenant(t.app, b, (tx) =>
      openApproval(tx, { runId: runB.id, step: 'review', seq: 1, title: 'second' }),
    )
    const stats = await pendingApprovalStats(t.app)
    expect(stats.pending).toBe(2)
    expect(stats.oldestCreatedAt?.getTime()).toBe(first.approval.createdAt.getTime())
    expect(stats.oldestCreatedAt!.getTime()).toBeGreaterThanOrEqual(before - 5_000)
    await withTenant(t.app, a, (tx) => cancelRunApprovals(tx, runA.id))
    expect((await pendingApprovalStats(t.app)).pending).toBe(1)
  })
})
