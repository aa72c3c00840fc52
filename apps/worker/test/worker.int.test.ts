import {
  createApprovalLifecycle,
  decideApproval,
  listApprovals,
  listRunEvents,
  withTenant,
  type Database,
} from '@weave/db'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'
import { reconcileOnce, type RunningWorker } from '../src/index.js'

let bed: WorkerTestbed
let database: Database
let worker: RunningWorker
let tenant: string

beforeAll(async () => {
  bed = await startWorkerTestbed('worker-test')
  ;({ database, worker, tenant } = bed)
})

afterAll(() => bed?.close())

const start = (name: string, spec: unknown, input?: Record<string, unknown>) =>
  bed.start(name, spec, input)
const runOf = (id: string) => bed.runOf(id)

describe('the worker', () => {
  it('executes a queued run to completion and records its events', async () => {
    const id = await start(
      'linear',
      {
        entry: 'a',
        steps: {
          a: { kind: 'set', values: { n: 'n + 1' }, next: 'b' },
          b: { kind: 'set', values: { doubled: 'n * 2' } },
        },
      },
      { n: 1 },
    )
    const run = await until(
      () => runOf(id),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(run).toMatchObject({ stopReason: 'completed', lastStep: 'b', steps: 2 })
    const events = await withTenant(database, tenant, (tx) => listRunEvents(tx, id))
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'step.completed',
      'step.completed',
      'run.completed',
    ])
  })

  it('opens an approval, waits, and resumes once the approval settles', async () => {
    const id = await start(
      'approve',
      {
        entry: 'review',
        steps: {
          review: {
            kind: 'approval',
            title: 'Ship {{ what }}?',
            next: { when: [{ if: "review.status = 'approved'", then: 'ship' }], else: null },
          },
          ship: { kind: 'set', values: { shipped: 'true' } },
        },
      },
      { what: 'it' },
    )
    const waiting = await until(
      () => runOf(id),
      (r) => r?.status === 'waiting',
      'waiting',
    )
    expect(waiting?.waitingOn).toMatchObject({ kind: 'approval', step: 'review' })
    const [approval] = (
      await withTenant(database, tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    expect(approval?.title).toBe('Ship it?')
    const lifecycle = createApprovalLifecycle({ database, jobs: worker.queues })
    const decided = await lifecycle.decide(tenant, {
      approvalId: approval!.id,
      subject: 'bob',
      subjectScopes: ['approvals:decide'],
      decision: 'approve',
      input: { note: 'fine' },
      context: { requestId: 'test', ip: '127.0.0.1' },
    })
    expect(decided.settled?.status).toBe('approved')
    const done = await until(
      () => runOf(id),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(done?.lastStep).toBe('ship')
    const state = await withTenant(database, tenant, (tx) => listRunEvents(tx, id))
    expect(state.map((e) => e.type)).toContain('approval.decided')
  })

  it('fails a run whose step fails, with the error recorded', async () => {
    const id = await start(
      'failing',
      { entry: 'boom', steps: { boom: { kind: 'fail', message: 'no {{ what }}' } } },
      { what: 'way' },
    )
    const run = await until(
      () => runOf(id),
      (r) => r?.status === 'failed',
      'failure',
    )
    expect(run?.error).toMatchObject({ message: expect.stringContaining('no way'), step: 'boom' })
  })

  it('resumes a run whose approval settled when the resume job was lost', async () => {
    const id = await start('lost-resume', {
      entry: 'review',
      steps: { review: { kind: 'approval', title: 'Go?', next: null } },
    })
    await until(
      () => runOf(id),
      (r) => r?.status === 'waiting',
      'waiting',
    )
    const [approval] = (
      await withTenant(database, tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    // The decision commits, but its resume job never reaches Redis.
    await withTenant(database, tenant, (tx) =>
      decideApproval(tx, {
        approvalId: approval!.id,
        subject: 'bob',
        subjectScopes: [],
        decision: 'approve',
      }),
    )
    const later = new Date(Date.now() + 60_000)
    const lifecycle = createApprovalLifecycle({ database, jobs: worker.queues })
    const report = await reconcileOnce(
      { database, queues: worker.queues, lifecycle, log: pino({ level: 'silent' }) },
      later,
    )
    expect(report.resumed).toBeGreaterThanOrEqual(1)
    const done = await until(
      () => runOf(id),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(done?.lastStep).toBe('review')
  })

  it('finishes a run whose approval expired when the resume job was lost', async () => {
    const id = await start('lost-expiry', {
      entry: 'review',
      steps: {
        review: {
          kind: 'approval',
          title: 'Go?',
          timeout: 'PT1H',
          next: { when: [{ if: "review.status = 'expired'", then: 'fallback' }], else: null },
        },
        fallback: { kind: 'set', values: { fellBack: 'true' } },
      },
    })
    await until(
      () => runOf(id),
      (r) => r?.status === 'waiting',
      'waiting',
    )
    const [approval] = (
      await withTenant(database, tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    // The expiry commits, but its resume job never reaches Redis.
    const away = createApprovalLifecycle({
      database,
      jobs: {
        enqueue: async () => {
          throw new Error('redis away')
        },
      },
      log: pino({ level: 'silent' }),
    })
    expect(await away.expire(tenant, approval!.id)).toMatchObject({ expired: true, runId: id })
    expect((await runOf(id))?.status).toBe('waiting')
    const lifecycle = createApprovalLifecycle({ database, jobs: worker.queues })
    const report = await reconcileOnce(
      { database, queues: worker.queues, lifecycle, log: pino({ level: 'silent' }) },
      new Date(Date.now() + 60_000),
    )
    expect(report.resumed).toBeGreaterThanOrEqual(1)
    const done = await until(
      () => runOf(id),
      (r) => r?.status === 'completed',
      'completion',
    )
    expect(done?.lastStep).toBe('fallback')
  })
})
