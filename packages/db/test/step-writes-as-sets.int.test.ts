import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRun, registerGraphVersion, withTenant, type StepCheckpoint } from '@weave/db'
import { sendStepWrite, sendStepWrites, stepWriteValues } from '../src/step-write-statements.js'
import {
  claimedRun as claimedRunWithWebhook,
  claimQueuedRun,
  claimedRunOf,
  stepWrite,
  STEP_NS,
} from './step-writes.js'
import { type TestDatabase, createTestDatabase, randomTenant } from './test-database.js'

// weave_save_steps writes the elements of a tenant as sets: one update of their runs, one insert
// of their checkpoints, one of their events. Each element must land exactly as weave_save_step
// lands it alone, so every test here writes the same steps to two groups of runs, one in shared
// statements and one write at a time, and compares what each left. A tenant with a webhook, a
// failed step, an approval or two writes of one run go through weave_save_step one by one.

let t: TestDatabase
// As the app role, with its function calls counted, so a test can tell which way a statement went.
let counted: pg.Pool

beforeAll(async () => {
  t = await createTestDatabase('weave_db_step_sets')
  counted = new pg.Pool({
    connectionString: t.url,
    max: 1,
    options: '-c role=weave_app -c track_functions=pl',
  })
})

afterAll(async () => {
  await counted?.end()
  await t?.drop()
})

type PlainRun = Awaited<ReturnType<typeof claimedRunOf>>

/** A run of `tenant` (which has no webhook) claimed by `job-1`. */
const plainRun = (tenant: string) => claimedRunOf(t.app, tenant)

/**
 * Two runs of `tenant` under one concurrency key with one slot: the first claimed by `job-1`,
 * the second waiting in the key's line.
 */
async function keyedPair(tenant: string): Promise<{ active: PlainRun; waiting: string }> {
  const [first, second] = await withTenant(t.app, tenant, async (tx) => {
    const { version } = await registerGraphVersion(tx, {
      name: 'g',
      spec: { entry: 'a', steps: { a: { kind: 'set', values: {} } } },
      createdBy: 'author',
    })
    const start = () =>
      createRun(tx, {
        graphName: 'g',
        graphVersion: version,
        input: {},
        createdBy: 'starter',
        concurrency: { key: 'k', limit: 1 },
      })
    return [(await start()).run, (await start()).run]
  })
  return { active: await claimQueuedRun(t.app, tenant, first.id), waiting: second.id }
}

/**
 * Sends `writes` as one weave_save_steps statement: each element's cancel request, and how many
 * elements went through weave_save_step one by one.
 */
async function shared(writes: StepCheckpoint[]): Promise<{ cancels: boolean[]; oneByOne: number }> {
  const client = await counted.connect()
  // The counts not yet reported by this backend: those of earlier statements too.
  const calls = async () => {
    const { rows } = await client.query<{ calls: string }>(
      `select pg_stat_get_xact_function_calls(p.oid) as calls from pg_proc p
       where p.proname = 'weave_save_step'`,
    )
    return Number(rows[0]?.calls ?? 0)
  }
  try {
    await client.query('begin')
    const before = await calls()
    const cancels = await sendStepWrites(client, writes.map(stepWriteValues))
    const oneByOne = (await calls()) - before
    await client.query('commit')
    return { cancels, oneByOne }
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
}

/** Sends `write` alone, as weave_save_step. */
async function alone(write: StepCheckpoint): Promise<boolean> {
  return (await sendStepWrite(t.app.pool, stepWriteValues(write))).cancelRequested
}

/** What a run's writes left, with its id replaced so two runs' can be compared. */
async function leftBy(runId: string) {
  const q = async (text: string) => (await t.owner.query(text, [runId])).rows
  const named = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(runId, 'RUN'))
  const [run] = await q(
    `select status, stop_reason, last_step, steps, checkpoint_seq, event_seq, pending_resume,
       waiting_on, wake_at, cancel_requested, finished_at is not null as finished
     from runs where id = $1`,
  )
  const checkpoints = await q(
    `select ns, key, value, attempt_seq from weave_kv
     where key like $1 || '%' order by ns, key`,
  )
  const events = await q(`select seq, type, data from run_events where run_id = $1 order by seq`)
  return named({ run, checkpoints, events })
}

const message = (turn: number) => ({
  type: 'agent.message' as const,
  data: { step: 'a', turn, content: `turn ${turn}`, toolCalls: [] },
})

/**
 * The writes of a four-step run, by statement: a step with two agent messages before its event,
 * a nested run's step (its own seq, ahead of the root's), a step without any event, and the step that completes the run.
 */
function scriptOf(r: PlainRun): StepCheckpoint[] {
  const nestedKey = `${r.runId}:child`
  return [
    stepWrite(r, 1, { events: [message(1), message(2)] }),
    stepWrite(r, 4, {
      ns: `${STEP_NS}:child`,
      keys: [nestedKey, `${nestedKey}/4`],
      latestKey: nestedKey,
      isRoot: false,
      event: { step: 'a/b', seq: 4 },
    }),
    stepWrite(r, 2, { event: null, keys: [r.runId] }),
    stepWrite(r, 3, { completes: { lastStep: 'a', addSteps: 3 } }),
  ]
}

describe('step writes written as sets', () => {
  it('leave each run exactly as its writes alone leave it', async () => {
    const tenant = randomTenant()
    const together = await Promise.all([1, 2, 3, 4].map(() => plainRun(tenant)))
    const apart = await Promise.all([1, 2, 3, 4].map(() => plainRun(tenant)))
    // One run of each group was asked to cancel: its writes say so. Before the first, second
    // and last statements every run holds a client's resume request, which a root write clears
    // and a nested one leaves.
    const runIds = [...together, ...apart].map((r) => r.runId)
    await t.owner.query(
      `update runs set pending_resume = '{"atSeq": 0, "reason": "input"}' where id = any($1)`,
      [runIds],
    )
    for (const r of [together[2]!, apart[2]!]) {
      await t.owner.query(`update runs set cancel_requested = true where id = $1`, [r.runId])
    }

    for (let i = 0; i < scriptOf(together[0]!).length; i++) {
      if (i === 1 || i === 3) {
        await t.owner.query(
          `update runs set pending_resume = jsonb_build_object('atSeq', checkpoint_seq, 'reason', 'input') where id = any($1)`,
          [runIds],
        )
      }
      const { cancels, oneByOne } = await shared(together.map((r) => scriptOf(r)[i]!))
      const expected = []
      for (const r of apart) expected.push(await alone(scriptOf(r)[i]!))
      expect(oneByOne).toBe(0)
      expect(cancels).toEqual(expected)
      for (const [j, r] of together.entries()) {
        expect(await leftBy(r.runId)).toEqual(await leftBy(apart[j]!.runId))
      }
    }

    for (const r of together) {
      const left = await leftBy(r.runId)
      expect(left.run).toMatchObject({ status: 'completed', checkpoint_seq: 3, steps: 3 })
      expect(left.events.map((e: { type: string }) => e.type)).toEqual([
        'agent.message',
        'agent.message',
        'step.completed',
        'step.completed',
        'step.completed',
        'run.completed',
      ])
    }
  })

  it('let a completing write free its concurrency slot for the run waiting in line', async () => {
    const [together, apart] = [await keyedPair(randomTenant()), await keyedPair(randomTenant())]
    const others = await Promise.all([together, apart].map((p) => plainRun(p.active.tenant)))
    const completing = (r: PlainRun) =>
      stepWrite(r, 1, { completes: { lastStep: 'a', addSteps: 1 } })

    const { oneByOne } = await shared([completing(together.active), stepWrite(others[0]!, 1)])
    await alone(completing(apart.active))

    expect(oneByOne).toBe(0)
    const waiting = async (id: string) => {
      const { rows } = await t.owner.query(`select held from runs where id = $1`, [id])
      return { ...(await leftBy(id)), held: rows[0]?.held }
    }
    const freed = await waiting(together.waiting)
    expect(freed).toEqual(await waiting(apart.waiting))
    expect(freed.held).toBe(false)
    expect(freed.events.map((e: { type: string }) => e.type)).toContain('run.admitted')
    expect(await leftBy(together.active.runId)).toEqual(await leftBy(apart.active.runId))
  })

  it('write nothing when one fence refuses, and let the caller send each write alone', async () => {
    const tenant = randomTenant()
    const runs = await Promise.all([1, 2, 3].map(() => plainRun(tenant)))
    // Another tenant's run, named with its own claim's token under this tenant.
    const foreign = await plainRun(randomTenant())
    runs.push(foreign)
    await alone(stepWrite(runs[2]!, 1))
    const before = await Promise.all(runs.map((r) => leftBy(r.runId)))

    for (const refused of [
      stepWrite({ ...runs[1]!, leaseToken: randomUUID() }, 1),
      stepWrite(runs[2]!, 1),
      stepWrite({ ...foreign, tenant }, 1),
    ]) {
      const writes = [stepWrite(runs[0]!, 1), refused]
      await expect(shared(writes)).rejects.toMatchObject({ code: 'WV004' })
    }

    expect(await Promise.all(runs.map((r) => leftBy(r.runId)))).toEqual(before)
  })

  it('write each tenant of a statement as its own set', async () => {
    const tenants = [randomTenant(), randomTenant()]
    const runs = await Promise.all([0, 1, 0, 1].map((i) => plainRun(tenants[i]!)))
    const apart = await Promise.all([0, 1, 0, 1].map((i) => plainRun(tenants[i]!)))
    await t.owner.query(`update runs set cancel_requested = true where id = $1`, [runs[1]!.runId])
    await t.owner.query(`update runs set cancel_requested = true where id = $1`, [apart[1]!.runId])

    const { cancels, oneByOne } = await shared(runs.map((r) => stepWrite(r, 1)))
    for (const r of apart) await alone(stepWrite(r, 1))

    expect(oneByOne).toBe(0)
    expect(cancels).toEqual([false, true, false, false])
    for (const [i, r] of runs.entries()) {
      expect(await leftBy(r.runId)).toEqual(await leftBy(apart[i]!.runId))
    }
  })

  it('go one by one for a tenant with a webhook, and as sets for the others', async () => {
    const hooked = await Promise.all(
      [1, 2].map(() => claimedRunWithWebhook(t.app, Buffer.alloc(32))),
    )
    const plain = await Promise.all([1, 2].map(() => plainRun(randomTenant())))

    const { oneByOne } = await shared([...hooked, ...plain].map((r) => stepWrite(r, 1)))

    expect(oneByOne).toBe(2)
    for (const r of hooked) {
      const { rows } = await t.owner.query(
        `select event_seq from webhook_deliveries where run_id = $1`,
        [r.runId],
      )
      expect(rows).toHaveLength(1)
    }
    for (const r of [...hooked, ...plain]) {
      expect((await leftBy(r.runId)).run.checkpoint_seq).toBe(1)
    }
  })

  it('go one by one when a write records a failure or two writes name one run', async () => {
    const tenant = randomTenant()
    const [failing, other, twice] = await Promise.all([1, 2, 3].map(() => plainRun(tenant)))

    const failed = await shared([
      stepWrite(failing!, 1, { isFailed: true, event: null }),
      stepWrite(other!, 1),
    ])
    const sameRun = await shared([stepWrite(twice!, 1), stepWrite(twice!, 2)])

    expect(failed.oneByOne).toBe(2)
    expect(sameRun.oneByOne).toBe(2)
    expect((await leftBy(twice!.runId)).run).toMatchObject({ checkpoint_seq: 2 })
    const { rows } = await t.owner.query(`select attempt_seq from weave_kv where key = $1`, [
      failing!.runId,
    ])
    expect(rows).toEqual([{ attempt_seq: 1 }])
  })
})
