import {
  createApprovalLifecycle,
  createRun,
  getRun,
  registerGraphVersion,
  requestRunCancel,
  withTenant,
  type RunRow,
} from '@weave/db'
import { createHandlerRegistry, defineHandler } from '@weave/spec'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'
import { reconcileOnce } from '../src/index.js'

/** Calls of the `test.gate` handler, each held until the test opens it. */
const calls: Array<{ runId: string; open: () => void }> = []
let inFlight = 0
let mostInFlight = 0
const gate = defineHandler('test.gate', async (_state, ctx) => {
  inFlight += 1
  mostInFlight = Math.max(mostInFlight, inFlight)
  await new Promise<void>((resolve) => calls.push({ runId: ctx.runId, open: resolve }))
  inFlight -= 1
  return { gated: true }
})

const SPEC = {
  entry: 'hold',
  steps: {
    hold: { kind: 'handler', name: 'test.gate', next: 'after' },
    after: { kind: 'set', values: { done: 'true' } },
  },
}

let bed: WorkerTestbed
let version: number

beforeAll(async () => {
  bed = await startWorkerTestbed('concurrency-keys', {
    handlers: createHandlerRegistry([gate]),
    concurrency: 8,
  })
  version = await withTenant(bed.database, bed.tenant, async (tx) => {
    const v = await registerGraphVersion(tx, { name: 'gated', spec: SPEC, createdBy: 'author' })
    return v.version
  })
})

afterAll(async () => {
  for (const call of calls) call.open()
  await bed?.close()
})

/** Starts a run of `key` as the API does: its job only when it is admitted at once. */
async function startKeyed(key: string, limit: number, enqueue = true): Promise<RunRow> {
  const { run } = await withTenant(bed.database, bed.tenant, (tx) =>
    createRun(tx, {
      graphName: 'gated',
      graphVersion: version,
      input: {},
      createdBy: 'starter',
      concurrency: { key, limit },
    }),
  )
  if (enqueue && !run.held)
    await bed.worker.queues.enqueue('run', { runId: run.id, tenant: bed.tenant })
  return run
}

const opened = new Set<(typeof calls)[number]>()
const pending = () => calls.filter((c) => !opened.has(c))

describe('concurrency keys on a worker', () => {
  it('runs at most the limit of 20 runs at once, admitting the others in start order, until all complete', async () => {
    const runs = await Promise.all(Array.from({ length: 20 }, () => startKeyed('k-race', 2)))
    const bySeq = [...runs].sort((a, b) => (a.concurrencySeq ?? 0) - (b.concurrencySeq ?? 0))
    const entered: string[] = []
    for (let done = 0; done < 20; done++) {
      // The next step to enter is there once every run that can hold a slot has entered it.
      const waiting = await until(
        () => pending(),
        (p) => p.length === Math.min(2, 20 - done),
        `${Math.min(2, 20 - done)} runs in the gated step`,
      )
      for (const call of waiting) if (!entered.includes(call.runId)) entered.push(call.runId)
      expect(inFlight).toBeLessThanOrEqual(2)
      const oldest = waiting[0]!
      opened.add(oldest)
      oldest.open()
      await until(
        () => bed.runOf(oldest.runId),
        (r) => r?.status === 'completed',
        'the opened run to complete',
      )
    }
    expect(mostInFlight).toBe(2)
    // The first two were admitted together; every later one in the order it was started.
    expect(new Set(entered.slice(0, 2))).toEqual(new Set(bySeq.slice(0, 2).map((r) => r.id)))
    expect(entered.slice(2)).toEqual(bySeq.slice(2).map((r) => r.id))
    const finished = await Promise.all(runs.map((r) => bed.runOf(r.id)))
    expect(finished.map((r) => r?.status)).toEqual(Array(20).fill('completed'))
  })

  it('starts a run admitted by an end whose enqueue was lost, from the reconciler', async () => {
    // The first run holds the key's slot and is cancelled before any job: its end admits the
    // second in the cancelling transaction, and nobody enqueues the second (a crash after commit).
    const first = await startKeyed('k-crash', 1, false)
    const second = await startKeyed('k-crash', 1)
    expect(second.held).toBe(true)
    await withTenant(bed.database, bed.tenant, (tx) => requestRunCancel(tx, first.id))
    const admitted = (await bed.runOf(second.id))!
    expect(admitted).toMatchObject({ status: 'queued', held: false })
    expect(await bed.worker.queues.runs.getJob(second.id)).toBeUndefined()

    const lifecycle = createApprovalLifecycle({ database: bed.database, jobs: bed.worker.queues })
    const log = pino({ level: 'silent' })
    const report = await reconcileOnce(
      { database: bed.database, queues: bed.worker.queues, lifecycle, log, quietMs: 0 },
      new Date(admitted.updatedAt.getTime() + 1),
    )
    expect(report.requeued).toBeGreaterThanOrEqual(1)
    const call = await until(
      () => pending().find((c) => c.runId === second.id),
      (c) => c !== undefined,
      'the admitted run to enter its step',
    )
    opened.add(call!)
    call!.open()
    const run = await until(
      () => withTenant(bed.database, bed.tenant, (tx) => getRun(tx, second.id)),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(run?.steps).toBe(2)
  })
})
