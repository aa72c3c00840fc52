import { randomBytes } from 'node:crypto'
import {
  createDb,
  createSchedule,
  deleteSchedule,
  getRun,
  listScheduleFirings,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type CreateScheduleInput,
  type Database,
  type ScheduleFiringRow,
  type ScheduleRow,
} from '@weave/db'
import { createJobQueues, redisConnection } from '@weave/queue'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorker, type RunningWorker } from '../src/index.js'
import { fireScheduleTick, reconcileSchedules } from '../src/schedules.js'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'

const log = pino({ level: 'silent' })
const testDb = testDatabase('weave_schedules')
const tenant = `t-${testDb.suffix}`
let database: Database
const started: RunningWorker[] = []

const QUICK = { entry: 'a', steps: { a: { kind: 'set', values: { done: 'true' } } } }
// Its run waits for a person, so it stays active while the schedule goes on firing.
const SLOW = { entry: 'review', steps: { review: { kind: 'approval', title: 'Go?' } } }

/** A worker on `prefix`; the test stops it or afterAll does. */
function worker(prefix: string): RunningWorker {
  const w = startWorker({
    log,
    reconcileIntervalMs: 0,
    database,
    connection: redisConnection(TEST_REDIS_URL),
    prefix,
  })
  started.push(w)
  return w
}

const freshPrefix = () => `schedules-${randomBytes(5).toString('hex')}`

async function schedule(input: Partial<CreateScheduleInput>): Promise<ScheduleRow> {
  return withTenant(database, tenant, (tx) =>
    createSchedule(tx, {
      graphName: 'quick',
      graphVersion: null,
      threadId: null,
      input: {},
      timing: { everyMs: 1000 },
      overlap: 'allow',
      catchUp: 'once',
      paused: false,
      createdBy: 'alice',
      ...input,
    }),
  )
}

/** Deletes the schedule and its job scheduler, so no later test's reconciler pass sees it. */
async function retire(s: ScheduleRow, w: RunningWorker): Promise<void> {
  await withTenant(database, tenant, (tx) => deleteSchedule(tx, s.id))
  await w.queues.removeScheduleTimer(s.id)
}

const firingsOf = async (id: string): Promise<ScheduleFiringRow[]> =>
  (await withTenant(database, tenant, (tx) => listScheduleFirings(tx, id, { limit: 200 }))).items

beforeAll(async () => {
  await migrateDatabase({ connectionString: testDb.url })
  database = createDb({ connectionString: testDb.url, max: 12 })
  await withTenant(database, tenant, async (tx) => {
    await registerGraphVersion(tx, { name: 'quick', spec: QUICK, createdBy: 'author' })
    await registerGraphVersion(tx, { name: 'slow', spec: SLOW, createdBy: 'author' })
  })
})

afterAll(async () => {
  for (const w of started) {
    // Every queue (the maintenance queue holds the repeatable schedules), so nothing of this
    // test's prefixes stays in the shared Redis.
    const { runs, timers, webhooks, maintenance } = w.queues
    for (const queue of [timers, runs, webhooks, maintenance]) {
      await queue.obliterate({ force: true }).catch(() => undefined)
    }
    await w.close()
  }
  await database?.close()
  await testDb.drop()
})

describe('schedule firings', () => {
  it('fires an every-second schedule once per tick across two workers', async () => {
    const prefix = freshPrefix()
    const [a] = [worker(prefix), worker(prefix)]
    const s = await schedule({})
    await a.queues.setScheduleTimer(s)
    const firings = await until(
      () => firingsOf(s.id),
      (f) => f.length >= 5,
      'five firings',
    )
    await retire(s, a)
    const ticks = firings.map((f) => f.scheduledFor!.getTime())
    expect(new Set(ticks).size).toBe(ticks.length)
    expect(new Set(firings.map((f) => f.runId)).size).toBe(firings.length)
    // Every tick is on the schedule's lattice (created + k seconds), none a second time.
    for (const t of ticks) expect((t - s.createdAt.getTime()) % 1000).toBe(0)
    expect(
      firings.every((f) => f.outcome === 'started' && f.tick === f.scheduledFor!.toISOString()),
    ).toBe(true)
  })

  it('records one firing when many workers take the same tick at once', async () => {
    const prefix = freshPrefix()
    const w = worker(prefix)
    // No job scheduler is set: only the handlers below fire it.
    const s = await schedule({})
    const tick = s.createdAt.getTime() + 1000
    const job = { id: `repeat:schedule-${s.id}:${tick}`, opts: {} }
    const deps = { database, jobs: w.queues, queues: w.queues, log }
    const kinds = await Promise.all(
      Array.from({ length: 8 }, () => fireScheduleTick(deps, { scheduleId: s.id, tenant }, job)),
    )
    await retire(s, w)
    expect(kinds.filter((k) => k === 'fired')).toHaveLength(1)
    expect(kinds.filter((k) => k === 'duplicate')).toHaveLength(7)
    const [firing] = await firingsOf(s.id)
    expect(firing).toBeDefined()
    // The schedule's author is the run's starter, so separation of duties binds them too.
    const run = await withTenant(database, tenant, (tx) => getRun(tx, firing!.runId!))
    expect(run?.createdBy).toBe('alice')
  })

  it('skips a tick while the run of an earlier firing is active (overlap skip)', async () => {
    const prefix = freshPrefix()
    const w = worker(prefix)
    const s = await schedule({ graphName: 'slow', overlap: 'skip' })
    await w.queues.setScheduleTimer(s)
    const firings = await until(
      () => firingsOf(s.id),
      (f) => f.length >= 3,
      'three firings',
    )
    await retire(s, w)
    const oldestFirst = [...firings].reverse()
    expect(oldestFirst[0]).toMatchObject({ outcome: 'started', reason: null })
    expect(
      oldestFirst.slice(1).every((f) => f.outcome === 'skipped' && f.reason === 'overlap'),
    ).toBe(true)
  })
})

describe('schedules across outages', () => {
  it('fires a tick missed while every worker was down once when a worker returns', async () => {
    const prefix = freshPrefix()
    const s = await schedule({})
    // The job scheduler is set while no worker runs: its ticks fall unhandled.
    const queues = createJobQueues({ connection: redisConnection(TEST_REDIS_URL), prefix })
    await queues.setScheduleTimer(s)
    await queues.close()
    // Three ticks pass with no worker up.
    await until(
      () => Date.now(),
      (now) => now > s.createdAt.getTime() + 3500,
      'three missed ticks',
    )
    const back = new Date()
    const w = worker(prefix)
    const firings = await until(
      () => firingsOf(s.id),
      (f) => f.some((x) => x.firedAt >= back && x.scheduledFor! > back),
      'a firing after recovery',
    )
    await retire(s, w)
    const missed = firings.filter((f) => f.scheduledFor! < back)
    expect(missed).toHaveLength(1)
    expect(missed[0]).toMatchObject({ outcome: 'started' })
  })

  it('rebuilds a job scheduler Redis lost, catching up the newest missed tick once', async () => {
    const prefix = freshPrefix()
    const w = worker(prefix)
    const deps = { database, jobs: w.queues, queues: w.queues, log }
    const once = await schedule({ graphName: 'slow' })
    const skip = await schedule({ graphName: 'slow', catchUp: 'skip' })
    // The reconciler passes 5.5 s after both were created, their schedulers lost all along.
    const now = new Date(skip.createdAt.getTime() + 5500)

    const first = await reconcileSchedules(deps, now)
    expect(first.rebuilt).toBe(2)
    expect(await w.queues.hasScheduleTimer(once.id)).toBe(true)
    const [caughtUp] = await firingsOf(once.id)
    expect(caughtUp).toMatchObject({ outcome: 'started' })
    const newest = now.getTime() - ((now.getTime() - once.createdAt.getTime()) % 1000)
    expect(caughtUp!.scheduledFor!.getTime()).toBe(newest)

    // Lost again before the next tick: the same tick is not fired twice.
    await w.queues.removeScheduleTimer(once.id)
    await reconcileSchedules(deps, now)
    await retire(once, w)
    await retire(skip, w)
    expect(await firingsOf(once.id)).toHaveLength(1)

    const skipped = await firingsOf(skip.id)
    expect(skipped).toHaveLength(1)
    expect(skipped[0]).toMatchObject({ outcome: 'skipped', reason: 'missed', runId: null })
  })
})
