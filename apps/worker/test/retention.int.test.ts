import { withTenant } from '@weave/db'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'

// The retention job as a worker runs it: a maintenance job prunes what the kernel really wrote.

let bed: WorkerTestbed

beforeAll(async () => {
  bed = await startWorkerTestbed('worker-retention', { retentionIntervalMs: 0 })
})

afterAll(() => bed?.close())

const steps = {
  a: { kind: 'set', values: { n: '1' }, next: 'b' },
  b: { kind: 'set', values: { n: 'n + 1' }, next: 'c' },
  c: { kind: 'set', values: { n: 'n + 1' } },
}

const keysOf = (runId: string) =>
  withTenant(bed.database, bed.tenant, async (tx) => {
    const result = await tx.db.execute<{ key: string }>(
      sql`select key from weave_kv where key like ${runId + '%'} order by key`,
    )
    return result.rows.map((r) => r.key)
  })

const finished = (id: string) =>
  until(
    () => bed.runOf(id),
    (r) => r?.status === 'completed',
    'the run to complete',
  )

describe('the retention job', () => {
  it('prunes the history of a finished run whose graph keeps none, and only that', async () => {
    const forgetful = await bed.start('forgetful', {
      entry: 'a',
      steps,
      retention: { checkpoints: 'none' },
    })
    const keeper = await bed.start('keeper', { entry: 'a', steps })
    await finished(forgetful)
    await finished(keeper)
    const keptBefore = await keysOf(keeper)
    expect((await keysOf(forgetful)).length).toBeGreaterThan(1)

    await bed.worker.queues.enqueue('applyRetention', {})
    const left = await until(
      () => keysOf(forgetful),
      (keys) => keys.length === 1,
      'the history to be pruned',
    )
    // The latest checkpoint stays: the run's final state is still readable.
    expect(left).toEqual([forgetful])
    const run = await bed.runOf(forgetful)
    expect(run).toMatchObject({ status: 'completed', retainedSeq: run?.checkpointSeq })
    expect(await keysOf(keeper)).toEqual(keptBefore)

    const metrics = await bed.worker.metrics.getSingleMetricAsString(
      'weave_retention_removed_total',
    )
    expect(metrics).toMatch(/weave_retention_removed_total\{kind="checkpoints"\} [1-9]/)
  })
})
