import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteExpiredRuns, registerGraphVersion, requestResume, withTenant } from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant } from './test-database.js'

// A failed run whose retention time has come may still be retried: once a retry was accepted
// (202, pending_resume set) the run is needed until a worker takes it. Deleting it then would
// lose the accepted retry, and free the concurrency slot it holds without admitting the run in
// line (the admission trigger fires on a status change, not on a delete).

let t: TestDatabase
const tenant = randomTenant()

async function expiredFailedRun(): Promise<string> {
  const { rows } = await t.owner.query<{ id: string }>(
    `insert into runs (tenant_id, graph_name, graph_version, status, input, created_by,
       checkpoint_seq, finished_at, retained_seq, expires_at)
     values ($1, 'g', 1, 'failed', '{}', 'starter', 3, now() - interval '40 days', 3,
       now() - interval '10 days')
     returning id`,
    [tenant],
  )
  return rows[0]!.id
}

const exists = async (id: string) =>
  (await t.owner.query(`select 1 from runs where id = $1`, [id])).rowCount === 1

beforeAll(async () => {
  t = await createTestDatabase('weave_db_retention_retry')
  await withTenant(t.app, tenant, (tx) =>
    registerGraphVersion(tx, {
      name: 'g',
      spec: { entry: 'a', steps: { a: { kind: 'set', values: { note: "'x'" } } } },
      createdBy: 'author',
    }),
  )
}, 60_000)

afterAll(async () => {
  await t?.drop()
})

describe('retention of a failed run with a retry accepted', () => {
  it('keeps the run until a worker takes the retry, and deletes one without', async () => {
    const retried = await expiredFailedRun()
    const forgotten = await expiredFailedRun()
    const accepted = await withTenant(t.app, tenant, (tx) =>
      requestResume(tx, retried, {
        reason: 'retry',
        input: {},
        atSeq: 3,
        by: 'ops',
        at: new Date().toISOString(),
      }),
    )
    expect(accepted?.id).toBe(retried)
    const deleted = await withTenant(t.app, tenant, (tx) =>
      deleteExpiredRuns(tx, {
        runIds: [retried, forgotten],
        now: new Date(),
        actor: 'system:retention',
      }),
    )
    expect(deleted.runIds).toEqual([forgotten])
    expect(await exists(retried)).toBe(true)
    expect(await exists(forgotten)).toBe(false)
  })
})
