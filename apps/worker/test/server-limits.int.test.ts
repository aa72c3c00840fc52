import {
  createDb,
  createRun,
  getRun,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type Database,
} from '@weave/db'
import { redisConnection } from '@weave/queue'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'
import { startWorker, type RunningWorker } from '../src/index.js'

// What one tenant's graph may take of what every tenant shares: the server's ceilings on a
// graph's limits and on the state a step may checkpoint hold whatever the graph says.
const MAX_STATE_BYTES = 4096
const STEP_BUDGET_CEILING = 5

const testDb = testDatabase('weave_worker_limits')
const { url, suffix } = testDb
const tenant = `t-${suffix}`

let database: Database
let worker: RunningWorker

beforeAll(async () => {
  await migrateDatabase({ connectionString: url })
  database = createDb({ connectionString: url, max: 8 })
  worker = startWorker({
    database,
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `worker-limits-${suffix}`,
    log: pino({ level: 'silent' }),
    reconcileIntervalMs: 0,
    maxStateBytes: MAX_STATE_BYTES,
    maxima: { stepBudget: STEP_BUDGET_CEILING },
  })
})

afterAll(async () => {
  await worker?.queues.runs.obliterate({ force: true })
  await worker?.queues.timers.obliterate({ force: true })
  await worker?.queues.maintenance.obliterate({ force: true })
  await worker?.close()
  await database?.close()
  await testDb.drop()
})

async function start(name: string, spec: unknown, input: Record<string, unknown> = {}) {
  const run = await withTenant(database, tenant, async (tx) => {
    const v = await registerGraphVersion(tx, { name, spec, createdBy: 'author' })
    return (
      await createRun(tx, {
        graphName: name,
        graphVersion: v.version,
        input: input as never,
        createdBy: 'starter',
      })
    ).run
  })
  await worker.queues.enqueue('run', { runId: run.id, tenant })
  return run.id
}

const finished = (id: string) =>
  until(
    () => withTenant(database, tenant, (tx) => getRun(tx, id)),
    (r) => r?.status === 'completed' || r?.status === 'failed',
    'the run to finish',
  )

describe('server-wide limits', () => {
  it('fails a run whose step would checkpoint more state than the limit, naming the step', async () => {
    const id = await start('grows', {
      entry: 'small',
      steps: {
        small: { kind: 'set', values: { note: "'fits'" }, next: 'grow' },
        grow: { kind: 'set', values: { blob: "$pad('', 8000, 'x')" }, next: 'after' },
        after: { kind: 'set', values: { reached: 'true' } },
      },
    })
    const run = await finished(id)
    expect(run).toMatchObject({ status: 'failed', lastStep: 'grow' })
    expect(run?.error).toMatchObject({ step: 'grow', message: expect.stringMatching(/4096/) })
    // The step before it was kept; nothing of the oversized state or after it was.
    expect(run?.checkpointSeq).toBe(1)
  })

  it('stops a self-loop at the server ceiling of the step budget, whatever the graph asks', async () => {
    const loop = (limits: object) => ({
      entry: 'spin',
      limits,
      steps: { spin: { kind: 'set', values: { n: 'n + 1' }, next: 'spin' } },
    })
    const unlimited = await finished(await start('spin-default', loop({}), { n: 0 }))
    const greedy = await finished(
      await start('spin-greedy', loop({ stepBudget: 1000, maxIterations: 1000 }), { n: 0 }),
    )
    for (const run of [unlimited, greedy]) {
      expect(run).toMatchObject({ status: 'failed', stopReason: 'budget' })
      expect(run?.steps).toBe(STEP_BUDGET_CEILING)
    }
  })
})
