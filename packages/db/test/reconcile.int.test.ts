import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  listOverdueApprovals,
  listRunsToReconcile,
  openApproval,
  transitionRun,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_reconcile')
})

afterAll(async () => {
  await t?.drop()
})

describe('reconciler scans', () => {
  it('lists stale queued and running runs of every tenant, and nothing else', async () => {
    const [a, b] = [randomTenant(), randomTenant()]
    const queued = await seedRunIn(t.app, a)
    const running = await seedRunIn(t.app, b)
    const done = await seedRunIn(t.app, b)
    await withTenant(t.app, b, async (tx) => {
      await transitionRun(tx, running.id, ['queued'], 'running')
      await transitionRun(tx, done.id, ['queued'], 'running')
      await transitionRun(tx, done.id, ['running'], 'completed')
    })
    const found = await listRunsToReconcile(t.app, {
      statuses: ['queued', 'running'],
      updatedBefore: new Date(Date.now() + 60_000),
    })
    expect(found.map((r) => [r.tenant, r.id, r.status]).sort()).toEqual(
      [
        [a, queued.id, 'queued'],
        [b, running.id, 'running'],
      ].sort(),
    )
    const none = await listRunsToReconcile(t.app, {
      statuses: ['queued', 'running'],
      updatedBefore: new Date(Date.now() - 60_000),
    })
    expect(none).toEqual([])
  })

  it('lists pending approvals past their expiry', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const { overdue } = await withTenant(t.app, tenant, async (tx) => ({
      overdue: await openApproval(tx, {
        runId: run.id,
        step: 'a',
        seq: 1,
        title: 'late',
        expiresAt: new Date(Date.now() - 1000),
      }),
      later: await openApproval(tx, {
        runId: run.id,
        step: 'b',
        seq: 1,
        title: 'later',
        expiresAt: new Date(Date.now() + 3_600_000),
      }),
    }))
    const found = await listOverdueApprovals(t.app)
    expect(found.map((x) => [x.tenant, x.id, x.runId])).toEqual([
      [tenant, overdue.approval.id, run.id],
    ])
  })
})
