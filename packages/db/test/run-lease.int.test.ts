import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  claimRun,
  getRun,
  renewRunLease,
  takeOverRunLease,
  transitionRun,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_lease')
})

afterAll(async () => {
  await t?.drop()
})

describe('run lease renewal', () => {
  it('touches a running run held by the job, and refuses once another job took it over', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, (tx) => claimRun(tx, run.id, ['queued'], 'job-1'))
    const claimed = await withTenant(t.app, tenant, (tx) => getRun(tx, run.id))
    // now() is the transaction's start, so a later transaction moves updated_at forward.
    await t.owner.query('select pg_sleep(0.01)')
    expect(await withTenant(t.app, tenant, (tx) => renewRunLease(tx, run.id, 'job-1'))).toBe(true)
    const renewed = await withTenant(t.app, tenant, (tx) => getRun(tx, run.id))
    expect(renewed!.updatedAt.getTime()).toBeGreaterThan(claimed!.updatedAt.getTime())

    await withTenant(t.app, tenant, (tx) => takeOverRunLease(tx, run.id, 'job-1', 'job-2'))
    expect(await withTenant(t.app, tenant, (tx) => renewRunLease(tx, run.id, 'job-1'))).toBe(false)
    expect(await withTenant(t.app, tenant, (tx) => renewRunLease(tx, run.id, 'job-2'))).toBe(true)
  })

  it('refuses a run that is not running, another tenant, and an id that is no UUID', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, async (tx) => {
      await claimRun(tx, run.id, ['queued'], 'job-1')
      await transitionRun(tx, run.id, ['running'], 'completed')
    })
    expect(await withTenant(t.app, tenant, (tx) => renewRunLease(tx, run.id, 'job-1'))).toBe(false)
    const other = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, (tx) => claimRun(tx, other.id, ['queued'], 'job-3'))
    expect(
      await withTenant(t.app, randomTenant(), (tx) => renewRunLease(tx, other.id, 'job-3')),
    ).toBe(false)
    expect(await withTenant(t.app, tenant, (tx) => renewRunLease(tx, 'nope', 'job-3'))).toBe(false)
  })
})
