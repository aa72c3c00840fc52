import {
  createDb,
  createRun,
  getRun,
  listRunEvents,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type Database,
} from '@weave/db'
import { redisConnection } from '@weave/queue'
import { createHandlerRegistry, defineHandler } from '@weave/spec'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'
import { startWorker, type RunningWorker } from '../src/index.js'
import { obliterateQueues } from '../../../test/support/queue-cleanup.js'

const testDb = testDatabase('weave_shutdown')
const { url, suffix } = testDb
const tenant = `t-${suffix}`
const prefix = `shutdown-test-${suffix}`
const silent = pino({ level: 'silent' })

/** Calls of the `test.call` handler, each held until the test lets it answer. */
const calls: Array<{ runId: string; aborted: boolean; answer: () => void }> = []
const outsideCall = defineHandler('test.call', async (_state, ctx) => {
  const call: (typeof calls)[number] = { runId: ctx.runId, aborted: false, answer: () => {} }
  await new Promise<void>((resolve) => {
    call.answer = resolve
    ctx.signal.addEventListener('abort', () => {
      call.aborted = true
    })
    calls.push(call)
  })
  return { called: true }
})

let database: Database
const workers: RunningWorker[] = []

function begin(): RunningWorker {
  const worker = startWorker({
    database,
    connection: redisConnection(TEST_REDIS_URL),
    prefix,
    log: silent,
    handlers: createHandlerRegistry([outsideCall]),
    reconcileIntervalMs: 0,
  })
  workers.push(worker)
  return worker
}

beforeAll(async () => {
  await migrateDatabase({ connectionString: url })
  database = createDb({ connectionString: url, max: 12 })
})

afterAll(async () => {
  for (const call of calls) call.answer()
  const last = workers.at(-1)
  if (last) await obliterateQueues(last.queues)
  await Promise.allSettled(workers.map((w) => w.close()))
  await database.close()
  await testDb.drop()
})

describe('a graceful shutdown', () => {
  it('lets a step in flight finish, hands the run back, and never runs that step again', async () => {
    const first = begin()
    const run = await withTenant(database, tenant, async (tx) => {
      const spec = {
        entry: 'call',
        steps: {
          call: { kind: 'handler', name: 'test.call', next: 'after' },
          after: { kind: 'set', values: { done: 'true' } },
        },
      }
      const v = await registerGraphVersion(tx, { name: 'graceful', spec, createdBy: 'author' })
      return (
        await createRun(tx, {
          graphName: 'graceful',
          graphVersion: v.version,
          input: {},
          createdBy: 'a',
        })
      ).run
    })
    await first.queues.enqueue('run', { runId: run.id, tenant })
    await until(
      () => calls.length,
      (n) => n === 1,
      'the outside call to start',
    )

    // The shutdown (asked for synchronously by close) waits for the call in flight instead of
    // cutting it off.
    const closed = first.close()
    expect(calls[0]!.aborted).toBe(false)
    calls[0]!.answer()
    await closed
    expect(calls[0]!.aborted).toBe(false)

    const handedBack = await withTenant(database, tenant, (tx) => getRun(tx, run.id))
    expect(handedBack?.status).toBe('running')
    const stepsSoFar = await withTenant(database, tenant, (tx) => listRunEvents(tx, run.id))
    expect(stepsSoFar.filter((e) => e.type === 'step.completed')).toHaveLength(1)

    begin()
    const done = await until(
      () => withTenant(database, tenant, (tx) => getRun(tx, run.id)),
      (r) => r?.status === 'completed',
      'another worker to finish the run',
    )
    expect(done?.lastStep).toBe('after')
    expect(calls).toHaveLength(1)
    const events = await withTenant(database, tenant, (tx) => listRunEvents(tx, run.id))
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'step.completed',
      'step.completed',
      'run.completed',
    ])
  })
})
