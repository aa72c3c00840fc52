import {
  createApprovalLifecycle,
  createDb,
  jobId,
  createRun,
  getRun,
  listRunEvents,
  migrateDatabase,
  registerGraphVersion,
  takeOverRunLease,
  withTenant,
  type Database,
} from '@weave/db'
import { redisConnection } from '@weave/queue'
import { createHandlerRegistry, defineHandler } from '@weave/spec'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'
import { reconcileOnce, serveMetrics, startWorker, type RunningWorker } from '../src/index.js'
import { obliterateQueues } from '../../../test/support/queue-cleanup.js'

const REDIS = TEST_REDIS_URL
const testDb = testDatabase('weave_lease')
const { url, suffix } = testDb
const tenant = `t-${suffix}`
const prefix = `lease-test-${suffix}`
const QUIET_MS = 2_000
const silent = pino({ level: 'silent' })

/** Calls of the `test.gate` handler, each held until the test opens it. */
const calls: Array<{ runId: string; open: () => void }> = []
const gate = defineHandler('test.gate', async (_state, ctx) => {
  await new Promise<void>((resolve) => calls.push({ runId: ctx.runId, open: resolve }))
  return { gated: true }
})

let database: Database
let worker: RunningWorker
const registry = new Registry()

beforeAll(async () => {
  await migrateDatabase({ connectionString: url })
  database = createDb({ connectionString: url, max: 12 })
  worker = startWorker({
    database,
    connection: redisConnection(REDIS),
    prefix,
    log: silent,
    handlers: createHandlerRegistry([gate]),
    reconcileIntervalMs: 0,
    reconcileQuietMs: QUIET_MS,
    metrics: registry,
  })
})

afterAll(async () => {
  for (const call of calls) call.open()
  await obliterateQueues(worker.queues)
  await worker.close()
  await database.close()
  await testDb.drop()
})

async function startGated(name: string): Promise<string> {
  const run = await withTenant(database, tenant, async (tx) => {
    const spec = {
      entry: 'hold',
      steps: {
        hold: { kind: 'handler', name: 'test.gate', next: 'after' },
        after: { kind: 'set', values: { done: 'true' } },
      },
    }
    const v = await registerGraphVersion(tx, { name, spec, createdBy: 'author' })
    return (
      await createRun(tx, { graphName: name, graphVersion: v.version, input: {}, createdBy: 'a' })
    ).run
  })
  await worker.queues.enqueue('run', { runId: run.id, tenant })
  return run.id
}

const runOf = (id: string) => withTenant(database, tenant, (tx) => getRun(tx, id))
const callsOf = (id: string) => calls.filter((call) => call.runId === id)

/** Deletes a job's hash from Redis, as a FLUSHALL would, while its worker still runs it. */
async function vanish(jobId: string): Promise<void> {
  const redis = new Redis(REDIS)
  try {
    expect(await redis.del(`${prefix}:${worker.queues.runs.name}:${jobId}`)).toBe(1)
  } finally {
    redis.disconnect()
  }
}

describe('run leases', () => {
  it('keeps a run whose job vanished with its live executor, which renews the lease', async () => {
    const id = await startGated('renewed')
    await until(
      () => callsOf(id),
      (c) => c.length === 1,
      'the step to start',
    )
    const claimed = (await runOf(id))!
    await vanish(claimed.leaseJob!)
    expect(await worker.queues.hasLiveJob('runs', claimed.leaseJob!)).toBe(false)
    // The executor renews the lease, so the run never looks abandoned to the reconciler. The
    // pass is dated at the renewal seen, so a slow machine cannot make the renewal look old.
    const renewed = await until(
      () => runOf(id),
      (r) => r!.updatedAt.getTime() > claimed.updatedAt.getTime() + QUIET_MS,
      'a lease renewal past the quiet period',
    )
    const lifecycle = createApprovalLifecycle({ database, jobs: worker.queues })
    const report = await reconcileOnce(
      { database, queues: worker.queues, lifecycle, log: silent, quietMs: QUIET_MS },
      renewed!.updatedAt,
    )
    expect(report.recovered).toBe(0)
    expect((await runOf(id))!.leaseJob).toBe(claimed.leaseJob)

    callsOf(id)[0]!.open()
    const done = await until(
      () => runOf(id),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(done).toMatchObject({ lastStep: 'after', steps: 2 })
    expect(callsOf(id)).toHaveLength(1)
  })

  it('stops an execution whose lease was taken over before it writes its step', async () => {
    const id = await startGated('taken-over')
    await until(
      () => callsOf(id),
      (c) => c.length === 1,
      'the step to start',
    )
    const held = (await runOf(id))!
    // What the reconciler does for a running run whose executor stopped renewing its lease.
    const takeover = { runId: id, tenant, takeover: '1' }
    const newJob = jobId('run', takeover)
    await withTenant(database, tenant, (tx) => takeOverRunLease(tx, id, held.leaseJob, newJob))
    await worker.queues.enqueue('run', takeover)

    callsOf(id)[0]!.open()
    // The replaced execution stops; the new job runs the interrupted step again.
    await until(
      () => callsOf(id),
      (c) => c.length === 2,
      'the new job to run the step',
    )
    const between = await withTenant(database, tenant, (tx) => listRunEvents(tx, id))
    expect(between.filter((e) => e.type === 'step.completed')).toEqual([])
    callsOf(id)[1]!.open()

    const done = await until(
      () => runOf(id),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(done).toMatchObject({ leaseJob: newJob, error: null })
    const events = await withTenant(database, tenant, (tx) => listRunEvents(tx, id))
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'step.completed',
      'step.completed',
      'run.completed',
    ])
    expect(events[1]!.data).toMatchObject({ step: 'hold' })
  })
})

describe('worker metrics', () => {
  it('records step durations and queue waits, and serves them over HTTP', async () => {
    const text = await registry.metrics()
    expect(text).toMatch(/^weave_step_duration_seconds_count [1-9]/m)
    expect(text).toMatch(/^weave_queue_wait_seconds_count\{queue="weave-runs"\} [1-9]/m)
    expect(text).toMatch(/^# TYPE weave_webhook_deliveries_total counter$/m)

    const server = await serveMetrics(registry, { port: 0, host: '127.0.0.1' })
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(await response.text()).toMatch(/^weave_step_duration_seconds_bucket\{le="\+Inf"\}/m)
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404)
    } finally {
      await server.close()
    }
  })
})
