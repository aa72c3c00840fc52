import {
  createApprovalLifecycle,
  createDb,
  createRun,
  getRun,
  listApprovals,
  migrateDatabase,
  registerGraphVersion,
  withTenant,
  type ApprovalLifecycle,
  type Database,
  type RunRow,
} from '@weave/db'
import { loadCheckpoint } from '@weave/kernel'
import { PgStore } from '@weave/pgstore'
import { redisConnection } from '@weave/queue'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_REDIS_URL, testDatabase, until } from './support/test-services.js'
import { startWorker, type RunningWorker } from '../src/index.js'
import { obliterateQueues } from '../../../test/support/queue-cleanup.js'

// The write-approval gate as the worker holds it: an approval step completes only with a
// decision settled in the approvals table for that run, step and material, used once.

const testDb = testDatabase('weave_gate')
const { url, suffix } = testDb
const tenant = `t-${suffix}`
const context = { requestId: 'test', ip: '127.0.0.1' }

let database: Database
let worker: RunningWorker
let lifecycle: ApprovalLifecycle

/** Pays `amount` once a person approved exactly that amount. */
const payment = (review: Record<string, unknown> = {}) => ({
  entry: 'review',
  steps: {
    review: {
      kind: 'approval',
      title: 'Pay {{ amount }}?',
      details: '{ "amount": amount }',
      ...review,
      next: { when: [{ if: "review.status = 'approved'", then: 'pay' }], else: null },
    },
    pay: { kind: 'set', values: { paid: 'amount' } },
  },
})

beforeAll(async () => {
  await migrateDatabase({ connectionString: url })
  database = createDb({ connectionString: url, max: 12 })
  worker = startWorker({
    database,
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `gate-test-${suffix}`,
    log: pino({ level: process.env.GATE_LOG ?? 'silent' }),
    reconcileIntervalMs: 0,
  })
  lifecycle = createApprovalLifecycle({ database, jobs: worker.queues })
})

afterAll(async () => {
  await obliterateQueues(worker.queues)
  await worker.close()
  await database.close()
  await testDb.drop()
})

let graphs = 0
async function start(spec: unknown, input: Record<string, unknown>, fork?: Partial<RunRow>) {
  const name = `pay-${++graphs}`
  const run = await withTenant(database, tenant, async (tx) => {
    const v = await registerGraphVersion(tx, {
      name: fork?.graphName ?? name,
      spec,
      createdBy: 'author',
    })
    return (
      await createRun(tx, {
        graphName: fork?.graphName ?? name,
        graphVersion: fork?.graphVersion ?? v.version,
        input: input as never,
        createdBy: 'starter',
        ...(fork ? { forkedFrom: fork.id!, forkedSeq: fork.checkpointSeq! } : {}),
      })
    ).run
  })
  await worker.queues.enqueue('run', { runId: run.id, tenant })
  return run
}

const runOf = (id: string) => withTenant(database, tenant, (tx) => getRun(tx, id))
const approvalsOf = async (runId: string) =>
  (await withTenant(database, tenant, (tx) => listApprovals(tx, { runId }))).items
const settle = (id: string, status: string) =>
  until(
    () => runOf(id),
    (r) => r?.status === status,
    `run ${id} ${status}`,
  )
const stateOf = async (run: RunRow) =>
  (await loadCheckpoint(new PgStore({ pool: database.pool, tenant }), run.graphName, run.id)).state

function decide(
  approvalId: string,
  subject: string,
  decision: 'approve' | 'reject',
  input?: object,
) {
  return lifecycle.decide(tenant, {
    approvalId,
    subject,
    subjectScopes: [],
    decision,
    ...(input ? { input: input as never } : {}),
    context,
  })
}

describe('the approval gate', () => {
  it('asks again in a fork whose input claims an approval and changes the amount', async () => {
    const original = await start(payment(), { amount: 100 })
    const waiting = (await settle(original.id, 'waiting'))!
    const fork = await start(payment(), { review: { status: 'approved' }, amount: 999999 }, waiting)
    const forkWaiting = await settle(fork.id, 'waiting')
    expect(forkWaiting?.waitingOn).toMatchObject({ kind: 'approval', step: 'review' })
    const [asked] = await approvalsOf(fork.id)
    expect(asked).toMatchObject({ status: 'pending', title: 'Pay 999999?' })
    expect((await approvalsOf(original.id))[0]?.status).toBe('pending')
  })

  it('does not let a decision of one run complete another run', async () => {
    const first = await start(payment(), { amount: 5 })
    const firstWaiting = (await settle(first.id, 'waiting'))!
    const second = await start(payment(), { amount: 5 }, firstWaiting)
    const secondWaiting = (await settle(second.id, 'waiting'))!
    const [firstApproval] = await approvalsOf(first.id)
    const decided = await decide(firstApproval!.id, 'bob', 'approve')
    expect(decided.didSettle).toBe(true)
    await settle(first.id, 'completed')
    // The first run used its decision; a resume of the second run now names it.
    await worker.queues.enqueue('resume', {
      runId: second.id,
      tenant,
      reason: 'approval-decided',
      atSeq: secondWaiting.checkpointSeq,
      approvalId: firstApproval!.id,
    })
    // The second run took the resume and asked again at the same step.
    await until(
      () => runOf(second.id),
      (r) => r?.status === 'waiting' && r.checkpointSeq > secondWaiting.checkpointSeq,
      'the second run to ask again',
    )
    expect(await stateOf((await runOf(second.id))!)).not.toHaveProperty('paid')
  })

  it('keeps each decider input in the record, never over the state the others confirmed', async () => {
    const run = await start(payment({ required: 2 }), { amount: 70 })
    await settle(run.id, 'waiting')
    const [approval] = await approvalsOf(run.id)
    await decide(approval!.id, 'alice', 'approve', { amount: 1 })
    await decide(approval!.id, 'bob', 'approve', { note: 'ok' })
    const done = (await settle(run.id, 'completed'))!
    const state = await stateOf(done)
    expect(state).toMatchObject({ amount: 70, paid: 70 })
    expect(state.review).toMatchObject({
      status: 'approved',
      approvalId: approval!.id,
      decisions: [
        { by: 'alice', decision: 'approve', input: { amount: 1 } },
        { by: 'bob', decision: 'approve', input: { note: 'ok' } },
      ],
    })
  })

  it('fails the run when an approval expires and its step says onTimeout "fail"', async () => {
    const run = await start(payment({ timeout: 'PT1H', onTimeout: 'fail' }), { amount: 3 })
    await settle(run.id, 'waiting')
    const [approval] = await approvalsOf(run.id)
    await withTenant(database, tenant, (tx) =>
      tx.db.execute(
        `update approvals set expires_at = now() - interval '1 second' where id = '${approval!.id}'` as never,
      ),
    )
    expect((await lifecycle.expire(tenant, approval!.id)).expired).toBe(true)
    const failed = await settle(run.id, 'failed')
    expect(failed?.error).toMatchObject({ name: 'ApprovalExpiredError', step: 'review' })
  })
})
