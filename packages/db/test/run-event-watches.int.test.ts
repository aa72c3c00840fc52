import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  RUN_EVENTS_CHANNEL,
  appendRunEvent,
  deleteExpiredRunEventWatches,
  listRunEvents,
  renewRunEventWatch,
  unwatchRunEvents,
  watchRunEvents,
  withTenant,
  type RunEventWatch,
  type TenantTx,
} from '@weave/db'
import {
  type TestDatabase,
  createTestDatabase,
  pgErrorOf,
  randomTenant,
  seedRunIn,
} from './test-database.js'

const TTL_MS = 600_000
let t: TestDatabase
let listener: pg.Client
const payloads: string[] = []

beforeAll(async () => {
  t = await createTestDatabase('weave_db_watches')
  listener = new pg.Client({ connectionString: t.url })
  await listener.connect()
  listener.on('notification', (message) => payloads.push(message.payload ?? ''))
  await listener.query(`LISTEN ${RUN_EVENTS_CHANNEL}`)
})

afterAll(async () => {
  await listener?.end()
  await t?.drop()
})

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * The announcements committed before now: a sentinel notified in a transaction of its own comes
 * after them, since notifications arrive in commit order.
 */
async function announcedSoFar(): Promise<string[]> {
  const sentinel = `sentinel-${randomUUID()}`
  await t.owner.query(`select pg_notify($1, $2)`, [RUN_EVENTS_CHANNEL, sentinel])
  await until(() => payloads.includes(sentinel), 'the sentinel')
  return payloads.slice(0, payloads.indexOf(sentinel))
}

const countOf = (list: string[], runId: string) => list.filter((p) => p === runId).length

/** A transaction held open until `release` is called; `ready` resolves once `work` is done. */
function heldTransaction<T>(tenant: string, work: (tx: TenantTx) => Promise<T>) {
  let release: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (release = resolve))
  let markReady: (value: T) => void = () => undefined
  const ready = new Promise<T>((resolve) => (markReady = resolve))
  const done = withTenant(t.app, tenant, async (tx) => {
    const value = await work(tx)
    markReady(value)
    await gate
    return value
  })
  return { ready, done, release }
}

/** Whether some backend of this database waits for a lock now (a registration or an append). */
async function isWaitingForLock(): Promise<boolean> {
  const result = await t.owner.query(
    `select 1 from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock'`,
  )
  return result.rows.length > 0
}

const newWatch = (): RunEventWatch => ({ watcher: randomUUID(), ttlMs: TTL_MS })

describe('run event announcements, only while a stream watches the run', () => {
  it('announces nothing for a run no stream watches', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, (tx) => appendRunEvent(tx, run.id, 'run.started', {}))
    expect(countOf(await announcedSoFar(), run.id)).toBe(0)
  })

  it('announces a watched run’s events, and stops once the watch is removed or expired', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const watch = newWatch()
    expect(await withTenant(t.app, tenant, (tx) => watchRunEvents(tx, run.id, watch))).toBe(true)
    await withTenant(t.app, tenant, (tx) => appendRunEvent(tx, run.id, 'run.started', {}))
    expect(countOf(await announcedSoFar(), run.id)).toBe(1)

    await withTenant(t.app, tenant, (tx) => unwatchRunEvents(tx, run.id, watch.watcher))
    await withTenant(t.app, tenant, (tx) =>
      appendRunEvent(tx, run.id, 'step.completed', { step: 'a', seq: 1 }),
    )
    expect(countOf(await announcedSoFar(), run.id)).toBe(1)

    const expiring = newWatch()
    await withTenant(t.app, tenant, (tx) => watchRunEvents(tx, run.id, expiring))
    await t.owner.query(
      `update run_event_watches set expires_at = now() - interval '1 second' where run_id = $1`,
      [run.id],
    )
    await withTenant(t.app, tenant, (tx) =>
      appendRunEvent(tx, run.id, 'step.completed', { step: 'a', seq: 2 }),
    )
    expect(countOf(await announcedSoFar(), run.id)).toBe(1)
  })

  it('announces a watched run’s event whatever the writer’s session names run_event_watches', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, (tx) => watchRunEvents(tx, run.id, newWatch()))
    // The trigger runs with the writer's search path (migration 0047), here one that finds this
    // empty temporary table first: an unqualified name in its body would read it.
    await withTenant(t.app, tenant, async (tx) => {
      await tx.db.execute(
        sql`create temporary table run_event_watches (run_id uuid, expires_at timestamptz) on commit drop`,
      )
      await tx.db.execute(sql`set local search_path = pg_temp, public, pg_catalog`)
      await appendRunEvent(tx, run.id, 'run.started', {})
    })
    expect(countOf(await announcedSoFar(), run.id)).toBe(1)
  })

  it('refuses a watch of a run the tenant does not have', async () => {
    const watch = newWatch()
    expect(
      await withTenant(t.app, randomTenant(), (tx) => watchRunEvents(tx, randomUUID(), watch)),
    ).toBe(false)
    expect(await withTenant(t.app, randomTenant(), (tx) => watchRunEvents(tx, 'nope', watch))).toBe(
      false,
    )
  })

  it('waits for an appender that has not committed, then reads its event', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const appender = heldTransaction(tenant, (tx) => appendRunEvent(tx, run.id, 'run.started', {}))
    const event = await appender.ready
    try {
      // While the appender holds the run row, a registration cannot get through.
      const impatient = withTenant(t.app, tenant, async (tx) => {
        await tx.db.execute(sql`set local lock_timeout = '50ms'`)
        return watchRunEvents(tx, run.id, newWatch())
      })
      expect((await pgErrorOf(impatient)).code).toBe('55P03')
      let isRegistered = false
      const registration = withTenant(t.app, tenant, (tx) =>
        watchRunEvents(tx, run.id, newWatch()),
      ).then(() => (isRegistered = true))
      await until(isWaitingForLock, 'the registration to wait for the run row')
      expect(isRegistered).toBe(false)
      appender.release()
      await appender.done
      await registration
    } finally {
      appender.release()
    }
    // The appender's trigger ran before the watch existed: the stream's first read has the event.
    const events = await withTenant(t.app, tenant, (tx) =>
      listRunEvents(tx, run.id, { afterSeq: 0 }),
    )
    expect(events.map((e) => e.seq)).toEqual([event.seq])
  })

  it('makes an appender wait for a registration not yet committed, then announces its event', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const registration = heldTransaction(tenant, (tx) => watchRunEvents(tx, run.id, newWatch()))
    expect(await registration.ready).toBe(true)
    try {
      const impatient = withTenant(t.app, tenant, async (tx) => {
        await tx.db.execute(sql`set local lock_timeout = '50ms'`)
        return appendRunEvent(tx, run.id, 'run.started', {})
      })
      expect((await pgErrorOf(impatient)).code).toBe('55P03')
      let isAppended = false
      const append = withTenant(t.app, tenant, (tx) =>
        appendRunEvent(tx, run.id, 'run.started', {}),
      ).then(() => (isAppended = true))
      await until(isWaitingForLock, 'the appender to wait for the run row')
      expect(isAppended).toBe(false)
      registration.release()
      await registration.done
      await append
    } finally {
      registration.release()
    }
    expect(countOf(await announcedSoFar(), run.id)).toBe(1)
  })

  it('renews a watch in force in place, and leaves a lapsing one to be registered again', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const watch = newWatch()
    await withTenant(t.app, tenant, (tx) => watchRunEvents(tx, run.id, watch))
    expect(await withTenant(t.app, tenant, (tx) => renewRunEventWatch(tx, run.id, watch))).toBe(
      true,
    )
    await t.owner.query(
      `update run_event_watches set expires_at = now() + interval '1 minute' where watcher = $1`,
      [watch.watcher],
    )
    expect(await withTenant(t.app, tenant, (tx) => renewRunEventWatch(tx, run.id, watch))).toBe(
      false,
    )
    expect(await withTenant(t.app, tenant, (tx) => watchRunEvents(tx, run.id, watch))).toBe(true)
    const left = await t.owner.query<{ minutes: number }>(
      `select extract(epoch from expires_at - now()) / 60 as minutes
       from run_event_watches where watcher = $1`,
      [watch.watcher],
    )
    expect(Number(left.rows[0]?.minutes)).toBeGreaterThan(5)
  })

  it('removes expired watches: a run’s at its next registration, all of them in the sweep', async () => {
    const tenant = randomTenant()
    const [run, other] = [await seedRunIn(t.app, tenant), await seedRunIn(t.app, tenant)]
    const stale = [newWatch(), newWatch()]
    await withTenant(t.app, tenant, async (tx) => {
      await watchRunEvents(tx, run.id, stale[0]!)
      await watchRunEvents(tx, other.id, stale[1]!)
    })
    await t.owner.query(
      `update run_event_watches set expires_at = now() - interval '1 second' where run_id = any($1)`,
      [[run.id, other.id]],
    )
    const live = newWatch()
    await withTenant(t.app, tenant, (tx) => watchRunEvents(tx, run.id, live))
    const watchers = async () =>
      (
        await t.owner.query<{ watcher: string }>(
          `select watcher from run_event_watches where run_id = any($1) order by watcher`,
          [[run.id, other.id]],
        )
      ).rows.map((r) => r.watcher)
    expect(await watchers()).toEqual([live.watcher, stale[1]!.watcher].sort())
    expect(await deleteExpiredRunEventWatches(t.app, new Date())).toBeGreaterThanOrEqual(1)
    expect(await watchers()).toEqual([live.watcher])
  })

  it('shows a tenant none of another tenant’s watches', async () => {
    const [a, b] = [randomTenant(), randomTenant()]
    const run = await seedRunIn(t.app, a)
    await withTenant(t.app, a, (tx) => watchRunEvents(tx, run.id, newWatch()))
    const seen = (tenant: string) =>
      withTenant(t.app, tenant, async (tx) => {
        const result = await tx.db.execute(
          sql`select 1 from run_event_watches where run_id = ${run.id}`,
        )
        return result.rows.length
      })
    expect(await seen(a)).toBe(1)
    expect(await seen(b)).toBe(0)
    expect(await withTenant(t.app, b, (tx) => watchRunEvents(tx, run.id, newWatch()))).toBe(false)
    const forged = withTenant(t.app, b, (tx) =>
      tx.db.execute(sql`insert into run_event_watches (tenant_id, run_id, watcher, expires_at)
        values (${a}, ${run.id}, ${randomUUID()}, now() + interval '1 minute')`),
    )
    expect((await pgErrorOf(forged)).code).toBe('42501')
  })
})
