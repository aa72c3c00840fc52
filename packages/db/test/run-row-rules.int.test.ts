import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUN_STATUSES, saveStepCheckpoint } from '@weave/db'
import { claimedRun as claimedStepRun, stepWrite } from './step-writes.js'
import {
  type TestDatabase,
  createTestDatabase,
  pgErrorOf,
  randomTenant,
  runsUpdatedBy,
  seedRunIn,
} from './test-database.js'

// A run's row keeps three rules (migration 0045): its status is a known one, its concurrency key,
// limit (at least 1) and seq are all set or all null and a run with a key has no thread, and
// retention_due follows its status. One BEFORE trigger checks them on every insert and on an
// update that sets a column they read, and refuses a row as a CHECK constraint would; a step's
// write that does not end its run sets none of those columns, and pays nothing for them.

let t: TestDatabase
const secretsKey = randomBytes(32)

beforeAll(async () => {
  t = await createTestDatabase('weave_db_run_rules')
})

afterAll(async () => {
  await t?.drop()
})

/** A copy of a seeded run's row with `columns` set, inserted as the owner. */
async function insertRun(columns: Record<string, unknown>): Promise<string> {
  const seeded = await seedRunIn(t.app, randomTenant())
  const names = Object.keys(columns)
  const { rows } = await t.owner.query<{ id: string }>(
    `insert into runs (tenant_id, graph_name, graph_version, input, created_by
       ${names.map((n) => `, ${n}`).join('')})
     select tenant_id, graph_name, graph_version, input, created_by
       ${names.map((_, i) => `, $${i + 2}`).join('')}
     from runs where id = $1
     returning id`,
    [seeded.id, ...Object.values(columns)],
  )
  return rows[0]!.id
}

async function runRow(id: string) {
  const { rows } = await t.owner.query(
    `select status, retention_due, concurrency_key, concurrency_limit from runs where id = $1`,
    [id],
  )
  return rows[0]
}

const concurrency = { concurrency_key: 'k', concurrency_limit: 2, concurrency_seq: 1 }

describe('a run row’s rules', () => {
  it('accept every status the schema names, on insert and on update', async () => {
    // The trigger's list is SQL of its own; the check constraint was generated from RUN_STATUSES.
    const id = await insertRun({})
    for (const status of RUN_STATUSES) {
      expect(await runRow(await insertRun({ status })), status).toMatchObject({ status })
      await t.owner.query(`update runs set status = $2 where id = $1`, [id, status])
      expect(await runRow(id), status).toMatchObject({ status })
    }
  })

  it('refuse an unknown status, on insert and on update, as the check constraint did', async () => {
    expect(await pgErrorOf(insertRun({ status: 'paused' }))).toMatchObject({
      code: '23514',
      constraint: 'runs_status_check',
      table: 'runs',
    })
    const id = await insertRun({})
    expect(
      await pgErrorOf(t.owner.query(`update runs set status = 'paused' where id = $1`, [id])),
    ).toMatchObject({ code: '23514', constraint: 'runs_status_check' })
    expect(await runRow(id)).toMatchObject({ status: 'queued' })
  })

  it('refuse concurrency columns that disagree, on insert and on update', async () => {
    const refusedInserts = [
      { concurrency_key: 'k' },
      { ...concurrency, concurrency_seq: null },
      { ...concurrency, concurrency_limit: 0 },
    ]
    for (const columns of refusedInserts) {
      expect(await pgErrorOf(insertRun(columns)), JSON.stringify(columns)).toMatchObject({
        code: '23514',
        constraint: 'runs_concurrency_check',
      })
    }
    const id = await insertRun(concurrency)
    for (const set of [
      'concurrency_limit = 0',
      'concurrency_seq = null',
      'concurrency_key = null',
    ]) {
      expect(
        await pgErrorOf(t.owner.query(`update runs set ${set} where id = $1`, [id])),
        set,
      ).toMatchObject({ code: '23514', constraint: 'runs_concurrency_check' })
    }
    expect(await runRow(id)).toMatchObject({ concurrency_key: 'k', concurrency_limit: 2 })
  })

  it('mark a run due for retention when it ends, and only when its status changes', async () => {
    expect(await runRow(await insertRun({ status: 'completed' }))).toMatchObject({
      retention_due: true,
    })
    const id = await insertRun({})
    expect(await runRow(id)).toMatchObject({ retention_due: false })
    await t.owner.query(`update runs set status = 'completed' where id = $1`, [id])
    expect(await runRow(id)).toMatchObject({ retention_due: true })
    // Retention cleared the flag; a write that leaves the status as it is keeps it clear.
    await t.owner.query(`update runs set retention_due = false where id = $1`, [id])
    await t.owner.query(`update runs set status = 'completed', steps = 3 where id = $1`, [id])
    expect(await runRow(id)).toMatchObject({ retention_due: false })
    await t.owner.query(`update runs set status = 'running' where id = $1`, [id])
    expect(await runRow(id)).toMatchObject({ status: 'running', retention_due: false })
  })

  it('are checked by the step write that completes a run, and not by the ones before it', async () => {
    const c = await claimedStepRun(t.app, secretsKey)
    const step = await runsUpdatedBy(t, (database) => saveStepCheckpoint(database, stepWrite(c, 1)))
    expect(step).toMatchObject({ updates: 1, rowRuleChecks: 0 })
    const last = await runsUpdatedBy(t, (database) =>
      saveStepCheckpoint(database, stepWrite(c, 2, { completes: { lastStep: 'a', addSteps: 2 } })),
    )
    expect(last).toMatchObject({ updates: 1, rowRuleChecks: 1 })
    expect(await runRow(c.runId)).toMatchObject({ status: 'completed', retention_due: true })
  })
})
