import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  appendAudit,
  applyRetention,
  createWebhook,
  deleteExpiredRuns,
  getRetentionPolicy,
  pruneRunCheckpoints,
  putRetentionPolicy,
  registerGraphVersion,
  verifyAudit,
  withTenant,
  type RetentionReport,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant } from './test-database.js'

// Retention on a table of 100 000 history entries (1000 runs of 100 checkpoints each, seeded
// with INSERT ... SELECT): each policy removes what it says and nothing else, and runs executing
// meanwhile write their checkpoints and finish while a pass holds its batch's locks.

const HISTORY = 100
const step = (text: string) => ({ kind: 'set', values: { note: text } })
const spec = (retention?: object) => ({
  entry: 'a',
  steps: { a: step("'x'") },
  ...(retention ? { retention } : {}),
})

// Each group: its graph, status, days since it finished, and how many runs it has.
const GROUPS = {
  keepAll: { graph: 'keep-all', status: 'completed', age: 40, n: 349 },
  keepNone: { graph: 'keep-none', status: 'completed', age: 1, n: 250 },
  recent: { graph: 'tenant-default', status: 'completed', age: 1, n: 200 },
  expired: { graph: 'tenant-default', status: 'completed', age: 40, n: 100 },
  waiting: { graph: 'keep-none', status: 'waiting', age: 0, n: 50 },
  running: { graph: 'keep-none', status: 'running', age: 0, n: 50 },
  forkedFrom: { graph: 'tenant-default', status: 'failed', age: 40, n: 1 },
} as const
type Group = keyof typeof GROUPS

let t: TestDatabase
const a = randomTenant()
const b = randomTenant()
const ids = {} as Record<Group, string[]>
let otherTenantRuns: string[] = []
let withChildren: string[] = []
let live: { id: string; token: string }
let completer: string
const reports: RetentionReport[] = []

async function owner<T extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
  return (await t.owner.query<T>(text, values)).rows
}

/** Inserts `n` runs of one group with INSERT ... SELECT; returns their ids. */
async function seedGroup(
  tenant: string,
  g: { graph: string; status: string; age: number; n: number },
): Promise<string[]> {
  const rows = await owner<{ id: string }>(
    `insert into runs (tenant_id, graph_name, graph_version, status, input, created_by,
       checkpoint_seq, lease_token, finished_at)
     select $1, $2, 1, $3, '{}', 'seed', ${HISTORY},
       case when $3 = 'running' then gen_random_uuid() end,
       case when $3 in ('completed', 'failed', 'cancelled')
         then now() - make_interval(days => $4::int) end
     from generate_series(1, $5::int)
     returning id`,
    [tenant, g.graph, g.status, g.age, g.n],
  )
  return rows.map((r) => r.id)
}

/** Each run's latest checkpoint and history entries 1..HISTORY, in its graph's namespace. */
async function seedCheckpoints(tenant: string): Promise<void> {
  await owner(
    `insert into weave_kv (tenant_id, ns, key, value)
     select r.tenant_id, '0:checkpoint:' || r.graph_name,
       case when s = 0 then r.id::text else r.id || '/' || lpad(s::text, 12, '0') end,
       '{"seq":' || s || '}'
     from runs r cross join generate_series(0, ${HISTORY}) s
     where r.tenant_id = $1`,
    [tenant],
  )
}

const historyOf = async (runId: string, ns = '') =>
  (
    await owner<{ key: string }>(
      `select key from weave_kv where key like $1 and key ~ '/[0-9]{12}$' and ns like $2
       order by key`,
      [`${runId}/%`, `%${ns}`],
    )
  ).map((r) => Number(r.key.slice(-12)))

const countWhere = async (sql: string, values: unknown[]) =>
  Number((await owner<{ n: string }>(sql, values))[0]!.n)

/**
 * A connection that gives up on any lock it waits for more than a moment: what a run executing
 * during a pass does with it must never wait on the pass.
 */
async function impatientClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: t.url })
  await client.connect()
  await client.query(`set role weave_app`)
  await client.query(`set lock_timeout = '200ms'`)
  return client
}

let liveSeq = HISTORY
/** One checkpoint of the live run, written as a step's is (weave_save_step). */
async function liveCheckpoint(client: pg.Client): Promise<void> {
  liveSeq += 1
  const key = `${live.id}/${String(liveSeq).padStart(12, '0')}`
  await client.query(
    `select weave_save_step($1, $2::uuid, $3::uuid, '0:checkpoint:keep-none', $4::text[], $5,
       $2::text, $6::int, true, false, null, 'step.completed', $7::jsonb, '[]'::jsonb)`,
    [
      a,
      live.id,
      live.token,
      [live.id, key],
      JSON.stringify({ seq: liveSeq }),
      liveSeq,
      JSON.stringify({ step: 'a', seq: liveSeq }),
    ],
  )
}

/** Ends a running run as a worker does: a conditional status change in its tenant. */
async function complete(client: pg.Client, runId: string): Promise<number> {
  await client.query('begin')
  try {
    await client.query(`select set_config('weave.tenant', $1, true)`, [a])
    const result = await client.query(
      `update runs set status = 'completed', finished_at = now(), updated_at = now()
       where id = $1 and status = 'running'`,
      [runId],
    )
    await client.query('commit')
    return result.rowCount ?? 0
  } catch (err) {
    await client.query('rollback')
    throw err
  }
}

beforeAll(async () => {
  t = await createTestDatabase('weave_db_retention')
  await withTenant(t.app, a, async (tx) => {
    await registerGraphVersion(tx, {
      name: 'keep-all',
      spec: spec({ checkpoints: 'all', runDays: 365 }),
      createdBy: 'author',
    })
    await registerGraphVersion(tx, {
      name: 'keep-none',
      spec: spec({ checkpoints: 'none' }),
      createdBy: 'author',
    })
    await registerGraphVersion(tx, { name: 'tenant-default', spec: spec(), createdBy: 'author' })
    await registerGraphVersion(tx, { name: 'sub', spec: spec(), createdBy: 'author' })
    await putRetentionPolicy(tx, { checkpoints: { last: 3 }, runDays: 30 }, 'admin')
  })
  await withTenant(t.app, b, (tx) =>
    registerGraphVersion(tx, { name: 'keep-none', spec: spec(), createdBy: 'author' }),
  )
  for (const [group, g] of Object.entries(GROUPS) as Array<[Group, (typeof GROUPS)[Group]]>) {
    ids[group] = await seedGroup(a, g)
  }
  otherTenantRuns = await seedGroup(b, { graph: 'keep-none', status: 'completed', age: 40, n: 20 })
  await seedCheckpoints(a)
  await seedCheckpoints(b)
  // Subgraph child runs of some runs that keep no history: `<run>/child` in the child's graph.
  withChildren = ids.keepNone.slice(0, 10)
  await owner(
    `insert into weave_kv (tenant_id, ns, key, value)
     select $1, '0:checkpoint:sub',
       case when s = 0 then r || '/child' else r || '/child/' || lpad(s::text, 12, '0') end, '{}'
     from unnest($2::uuid[]) r cross join generate_series(0, 5) s`,
    [a, withChildren],
  )
  // Expired runs have events, webhook deliveries and attempts; recent ones have events too.
  const { webhook } = await withTenant(t.app, a, (tx) =>
    createWebhook(tx, randomBytes(32), {
      url: 'https://hooks.example/in',
      events: ['run.completed'],
      createdBy: 'ops',
    }),
  )
  await owner(
    `insert into run_events (tenant_id, run_id, seq, type, data)
     select $1, r, s, 'step.completed', '{}' from unnest($2::uuid[]) r, generate_series(1, 5) s`,
    [a, [...ids.expired, ...ids.keepNone]],
  )
  await owner(`update runs set event_seq = 5 where id = any($1::uuid[])`, [
    [...ids.expired, ...ids.keepNone],
  ])
  await owner(
    `with d as (
       insert into webhook_deliveries (tenant_id, webhook_id, event_type, run_id, event_seq,
         payload, status, attempts)
       select $1, $2::uuid, 'run.completed', r, 5, '{}', 'succeeded', 1
       from unnest($3::uuid[]) r returning id)
     insert into webhook_attempts (tenant_id, delivery_id, attempt, status_code, duration_ms)
     select $1, id, 1, 200, 5 from d`,
    [a, webhook.id, ids.expired],
  )
  // A waiting run forked from an expired one: that one must stay while the fork may need it.
  await owner(`update runs set forked_from = $1, forked_seq = 50 where id = $2`, [
    ids.forkedFrom[0],
    ids.waiting[0],
  ])
  live = {
    id: ids.running[0]!,
    token: (
      await owner<{ t: string }>(`select lease_token t from runs where id = $1`, [ids.running[0]])
    )[0]!.t,
  }
  completer = ids.running[1]!
  await withTenant(t.app, a, (tx) =>
    appendAudit(tx, {
      actor: 'starter',
      action: 'run.started',
      target: { kind: 'run', id: ids.expired[0]! },
    }),
  )
}, 120_000)

afterAll(async () => {
  await t?.drop()
})

describe('retention', () => {
  it('seeds 100 000 history entries', async () => {
    expect(
      await countWhere(
        `select count(*) n from weave_kv where key ~ '/[0-9]{12}$' and tenant_id = $1 and ns <> '0:checkpoint:sub'`,
        [a],
      ),
    ).toBe(100_000)
  })

  it('stores the tenant policy it was given', async () => {
    expect(await withTenant(t.app, a, (tx) => getRetentionPolicy(tx))).toMatchObject({
      checkpoints: { last: 3 },
      runDays: 30,
      updatedBy: 'admin',
    })
    expect(await withTenant(t.app, b, (tx) => getRetentionPolicy(tx))).toBeNull()
  })

  it('lets a run checkpoint and finish while a pruning batch holds its locks', async () => {
    const client = await impatientClient()
    try {
      await withTenant(t.app, a, async (tx) => {
        const pruned = await pruneRunCheckpoints(tx, {
          runId: ids.keepNone[0]!,
          seenSeq: HISTORY,
          keepHistory: 0,
          expiresAt: null,
          batchSize: 40,
        })
        expect(pruned).toEqual({ deleted: 40, done: false, skipped: false })
        // The batch's transaction is still open: the run's row and 40 checkpoint rows are locked.
        await liveCheckpoint(client)
        expect(await complete(client, completer)).toBe(1)
      })
      const early = ids.expired.slice(0, 5)
      await owner(
        `update runs set retained_seq = checkpoint_seq, expires_at = now() - interval '1 day'
         where id = any($1::uuid[])`,
        [early],
      )
      await withTenant(t.app, a, async (tx) => {
        const deleted = await deleteExpiredRuns(tx, {
          runIds: early,
          now: new Date(),
          actor: 'system:retention',
        })
        expect(deleted.runIds.sort()).toEqual([...early].sort())
        // The deleting transaction is still open, its rows locked.
        await liveCheckpoint(client)
      })
    } finally {
      await client.end()
    }
  })

  it('stops at its time budget, leaving the work to the next pass', async () => {
    const report = await applyRetention(t.app, { actor: 'system:retention', budgetMs: 0 })
    expect(report).toMatchObject({ complete: false, runsRetained: 0, checkpointsPruned: 0 })
    expect(await historyOf(ids.keepNone[20]!)).toHaveLength(HISTORY)
  })

  it('applies every policy in one pass while a run goes on checkpointing', async () => {
    const client = await impatientClient()
    let passDone = false
    let writes = 0
    try {
      const pass = applyRetention(t.app, {
        actor: 'system:retention',
        checkpointBatch: 50,
        runBatch: 25,
      }).finally(() => {
        passDone = true
      })
      while (!passDone) {
        await liveCheckpoint(client)
        writes += 1
      }
      reports.push(await pass)
    } finally {
      await client.end()
    }
    expect(writes).toBeGreaterThan(0)
    // Five of the expired runs went in the test before.
    expect(reports[0]).toMatchObject({
      runsDeleted: ids.expired.length - 5,
      runsSkipped: 1,
      complete: true,
    })
  }, 300_000)

  it('keeps all of a keep-all graph’s history, whatever the tenant says', async () => {
    for (const id of ids.keepAll.slice(0, 5)) expect(await historyOf(id)).toHaveLength(HISTORY)
    expect(
      await countWhere(`select count(*) n from runs where id = any($1::uuid[])`, [ids.keepAll]),
    ).toBe(ids.keepAll.length)
    expect(
      await countWhere(`select count(*) n from weave_kv where key like any($1)`, [
        ids.keepAll.map((id) => `${id}%`),
      ]),
    ).toBe(ids.keepAll.length * (HISTORY + 1))
  })

  it('keeps only the latest checkpoint of a finished keep-none run, its children’s too', async () => {
    const rows = await owner<{ key: string }>(
      `select key from weave_kv where key like any($1) order by key`,
      [[...ids.keepNone, completer].map((id) => `${id}%`)],
    )
    const expected = [
      ...ids.keepNone.map((id) => id),
      ...withChildren.map((id) => `${id}/child`),
      completer,
    ].sort()
    expect(rows.map((r) => r.key)).toEqual(expected)
    const latest = await owner<{ value: string }>(
      `select value from weave_kv where key = $1 and ns = '0:checkpoint:keep-none'`,
      [ids.keepNone[1]],
    )
    expect(latest).toEqual([{ value: `{"seq":0}` }])
    // The runs themselves, and their events, stay: their graph keeps runs for the tenant's 30 days.
    expect(
      await countWhere(`select count(*) n from run_events where run_id = any($1::uuid[])`, [
        ids.keepNone,
      ]),
    ).toBe(ids.keepNone.length * 5)
  })

  it('keeps the newest three history entries under the tenant policy', async () => {
    for (const id of [...ids.recent.slice(0, 5), ids.forkedFrom[0]!]) {
      expect(await historyOf(id)).toEqual([HISTORY - 2, HISTORY - 1, HISTORY])
    }
    expect(
      await countWhere(`select count(*) n from weave_kv where key like any($1)`, [
        ids.recent.map((id) => `${id}%`),
      ]),
    ).toBe(ids.recent.length * 4)
  })

  it('never touches the checkpoints of runs that have not finished', async () => {
    for (const id of [...ids.waiting, ...ids.running.slice(2)]) {
      expect(await historyOf(id)).toHaveLength(HISTORY)
    }
    expect(await historyOf(live.id)).toHaveLength(liveSeq)
  })

  it('deletes expired runs with their checkpoints, events, deliveries and attempts', async () => {
    const expired = ids.expired
    expect(
      await countWhere(`select count(*) n from runs where id = any($1::uuid[])`, [expired]),
    ).toBe(0)
    expect(
      await countWhere(`select count(*) n from weave_kv where key like any($1)`, [
        expired.map((id) => `${id}%`),
      ]),
    ).toBe(0)
    for (const table of ['run_events', 'webhook_deliveries']) {
      expect(
        await countWhere(`select count(*) n from ${table} where run_id = any($1::uuid[])`, [
          expired,
        ]),
      ).toBe(0)
    }
    expect(await countWhere(`select count(*) n from webhook_attempts`, [])).toBe(0)
  })

  it('keeps an expired run a waiting fork still refers to', async () => {
    const [row] = await owner<{ status: string; expires_at: Date | null }>(
      `select status, expires_at from runs where id = $1`,
      [ids.forkedFrom[0]],
    )
    expect(row?.status).toBe('failed')
    expect(row?.expires_at).not.toBeNull()
  })

  it('leaves another tenant’s rows alone', async () => {
    for (const id of otherTenantRuns.slice(0, 5)) expect(await historyOf(id)).toHaveLength(HISTORY)
    expect(await countWhere(`select count(*) n from runs where tenant_id = $1`, [b])).toBe(
      otherTenantRuns.length,
    )
  })

  it('records the deletions in the audit log, whose chain still verifies', async () => {
    const rows = await owner<{ details: { runIds: string[] } }>(
      `select details from audit_events where tenant_id = $1 and action = 'retention.runs-deleted'`,
      [a],
    )
    expect(rows.flatMap((r) => r.details.runIds).sort()).toEqual([...ids.expired].sort())
    // The audit event of a deleted run outlives it.
    expect(
      await countWhere(`select count(*) n from audit_events where target_id = $1`, [
        ids.expired[0],
      ]),
    ).toBe(1)
    const verification = await withTenant(t.app, a, (tx) => verifyAudit(tx))
    expect(verification).toMatchObject({ ok: true })
  })

  it('finds nothing left to do in the next pass', async () => {
    const again = await applyRetention(t.app, { actor: 'system:retention' })
    expect(again).toEqual({
      runsRetained: 0,
      checkpointsPruned: 0,
      runsDeleted: 0,
      runCheckpointsDeleted: 0,
      eventsDeleted: 0,
      deliveriesDeleted: 0,
      approvalsDeleted: 0,
      // The run the waiting fork refers to stays expired and skipped until the fork finishes.
      runsSkipped: 1,
      watchesDeleted: 0,
      complete: true,
    })
  })

  it('prunes a run again once it was resumed and finished anew', async () => {
    const id = ids.recent[0]!
    await owner(
      `insert into weave_kv (tenant_id, ns, key, value)
       select $1, '0:checkpoint:tenant-default', $2 || '/' || lpad(s::text, 12, '0'), '{}'
       from generate_series(${HISTORY + 1}, ${HISTORY + 4}) s`,
      [a, id],
    )
    // Resumed (its status leaves the finished ones), four more steps, finished again.
    await owner(`update runs set status = 'running', finished_at = null where id = $1`, [id])
    await owner(
      `update runs set status = 'completed', checkpoint_seq = ${HISTORY + 4}, finished_at = now()
       where id = $1`,
      [id],
    )
    const report = await applyRetention(t.app, { actor: 'system:retention' })
    expect(report).toMatchObject({ runsRetained: 1, checkpointsPruned: 4 })
    expect(await historyOf(id)).toEqual([HISTORY + 2, HISTORY + 3, HISTORY + 4])
  })
})
