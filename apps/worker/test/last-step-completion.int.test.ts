import { createApprovalLifecycle, listApprovals, withTenant, type Database } from '@weave/db'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'

// A run whose last step the graph routes nowhere after ends in that step's checkpoint write: the
// run's completion and its run.completed event commit with the step's checkpoint and
// step.completed event, in one transaction. A run that ends otherwise (a router that returned
// END) is completed after its last write, as before. Either way the run ends once, with its
// events numbered without gaps.

let bed: WorkerTestbed
let database: Database

beforeAll(async () => {
  bed = await startWorkerTestbed('last-step')
  ;({ database } = bed)
})

afterAll(() => bed?.close())

/** The run's events with the transaction that wrote each (`xmin`). */
async function eventsOf(runId: string) {
  const { rows } = await withTenant(database, bed.tenant, (tx) =>
    tx.db.execute<{ seq: number; type: string; data: unknown; tx: string }>(
      sql`select seq, type, data, xmin::text as tx from run_events where run_id = ${runId} order by seq`,
    ),
  )
  return rows
}

const completed = (id: string) =>
  until(
    () => bed.runOf(id),
    (r) => r?.status === 'completed',
    'completion',
  )

function expectGapFree(events: Array<{ seq: number }>): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
}

describe('a run’s last step', () => {
  it('completes the run in its own checkpoint write when the graph routes nowhere after it', async () => {
    const id = await bed.start('three-steps', {
      entry: 'fetch',
      steps: {
        fetch: { kind: 'set', values: { total: '40' }, next: 'tax' },
        tax: { kind: 'set', values: { total: 'total + 2' }, next: 'report' },
        report: { kind: 'set', values: { line: "'total ' & total" }, next: null },
      },
    })

    expect(await completed(id)).toMatchObject({
      stopReason: 'completed',
      lastStep: 'report',
      steps: 3,
    })
    const events = await eventsOf(id)
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      ...Array<string>(3).fill('step.completed'),
      'run.completed',
    ])
    expectGapFree(events)
    const [first, last, end] = events.slice(-3)
    expect(end!.data).toEqual({ steps: 3, lastStep: 'report' })
    // The last step's event and the run's end were written by one transaction, the step
    // before it by another.
    expect(end!.tx).toBe(last!.tx)
    expect(first!.tx).not.toBe(last!.tx)
  })

  it('is completed after its write when a router decided the run ends', async () => {
    const id = await bed.start('routed', {
      entry: 'a',
      steps: {
        a: {
          kind: 'set',
          values: { n: '1' },
          next: { when: [{ if: 'n > 5', then: 'a' }], else: null },
        },
      },
    })

    expect(await completed(id)).toMatchObject({ lastStep: 'a', steps: 1 })
    const events = await eventsOf(id)
    expect(events.map((e) => e.type)).toEqual(['run.started', 'step.completed', 'run.completed'])
    expectGapFree(events)
    expect(events[2]!.tx).not.toBe(events[1]!.tx)
  })

  it('waits when it is an approval that yields, and completes with the decision’s write once decided', async () => {
    // The client's input names the checkpoint's status field: only the kernel's own field of
    // the yielded checkpoint decides, not a key of the state.
    const id = await bed.start(
      'approve-last',
      {
        entry: 'prepare',
        steps: {
          prepare: { kind: 'set', values: { ready: 'true' }, next: 'review' },
          review: { kind: 'approval', title: 'Ship?' },
        },
      },
      { status: 'step_done' },
    )
    const waiting = await until(
      () => bed.runOf(id),
      (r) => r?.status === 'waiting',
      'waiting',
    )
    expect(waiting?.finishedAt).toBeNull()
    const [approval] = (
      await withTenant(database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    await createApprovalLifecycle({ database, jobs: bed.worker.queues }).decide(bed.tenant, {
      approvalId: approval!.id,
      subject: 'bob',
      subjectScopes: ['approvals:decide'],
      decision: 'approve',
      context: { requestId: 'test', ip: '127.0.0.1' },
    })

    // The steps of both executions count: prepare and review, then review again.
    expect(await completed(id)).toMatchObject({ lastStep: 'review', steps: 3 })
    const events = await eventsOf(id)
    expectGapFree(events)
    expect(events.filter((e) => e.type === 'run.completed')).toHaveLength(1)
    const [last, end] = events.slice(-2)
    expect(last).toMatchObject({ type: 'step.completed' })
    expect(end).toMatchObject({ type: 'run.completed', data: { steps: 3, lastStep: 'review' } })
    expect(end!.tx).toBe(last!.tx)
    const [decided] = (
      await withTenant(database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    expect(decided?.consumedSeq).toEqual(expect.any(Number))
  })
})
