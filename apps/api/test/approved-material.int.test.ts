import { createApprovalLifecycle, getRun, listAudit, listRunEvents, withTenant } from '@weave/db'
import type { Json } from '@weave/kernel'
import { PgStore } from '@weave/pgstore'
import { GraphSpec, compileGraph } from '@weave/spec'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApprovalView } from '../src/schemas/approvals.js'
import { RunHistory, RunView } from '../src/schemas/runs.js'
import { randomTenant } from './support/database.js'
import { asTenant, moveRun, setCheckpointSeq } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let alice: string
let bob: string
const tenant = randomTenant()

/** An approval on a rendered total, a step acting on it, then a step that always fails. */
const CHARGE_SPEC = {
  entry: 'price',
  steps: {
    price: { kind: 'set', values: { total: 'amount * 2' }, next: 'review' },
    review: { kind: 'approval', title: 'Charge {{ total }}?', next: 'charge' },
    charge: { kind: 'set', values: { charged: 'total' }, next: 'notify' },
    notify: { kind: 'fail', message: 'the notifier is down' },
  },
}

beforeAll(async () => {
  h = await createHarness('api_approved_material')
  alice = await h.token(tenant, 'alice')
  bob = await h.token(tenant, 'bob')
  const graph = { name: 'charge', spec: CHARGE_SPEC }
  expectJson(await h.call({ method: 'POST', url: '/v1/graphs', token: alice, body: graph }), 201)
})
afterAll(async () => h?.close())

/**
 * A failed run whose approval `review` was approved by bob and used, with the checkpoints a
 * worker would have written: 1 price, 2 review (asked), 3 review (approved), 4 charge, 5 notify
 * (failed). The kernel writes them into the tenant's PgStore; the rows a worker keeps beside
 * them (the approval's use, the run's checkpoint seq and status) are set as it would set them.
 */
async function approvedAndFailed(): Promise<{ runId: string; approvalId: string }> {
  const run = expectJson(
    await h.call({
      method: 'POST',
      url: '/v1/runs',
      token: alice,
      body: { graph: 'charge', input: { amount: 10 } },
    }),
    202,
    RunView,
  )
  const store = new PgStore({ pool: h.database.pool, tenant })
  let record: Json | null = null
  const { graph } = await compileGraph('charge', GraphSpec.parse(CHARGE_SPEC), {
    approvals: { decision: async () => record },
  })
  expect((await graph.run({ amount: 10 }, { runId: run.id, store })).stopReason).toBe('yielded')
  const approvalId = await openReviewApproval(run.id)
  const decided = expectJson(
    await h.call({
      method: 'POST',
      url: `/v1/approvals/${approvalId}/decision`,
      token: bob,
      body: { decision: 'approve' },
    }),
    200,
    ApprovalView,
  )
  record = { status: decided.status, approvalId, decisions: [] }
  expect((await graph.resume(run.id, {}, { store })).stopReason).toBe('error')
  await asTenant(h.database, tenant, 'update approvals set consumed_seq = 3 where id = $1', [
    approvalId,
  ])
  await moveRun(h.database, tenant, run.id, 'failed')
  await setCheckpointSeq(h.database, tenant, run.id, 5)
  const history = expectJson(
    await h.call({ method: 'GET', url: `/v1/runs/${run.id}/history`, token: alice }),
    200,
    RunHistory,
  )
  expect(history.items.map((c) => [c.seq, c.lastStep, c.status])).toEqual([
    [1, 'price', 'step_done'],
    [2, 'review', 'yielded'],
    [3, 'review', 'step_done'],
    [4, 'charge', 'step_done'],
    [5, 'notify', 'failed'],
  ])
  return { runId: run.id, approvalId }
}

/** The approval the worker opens when `review` yields at checkpoint 2 (material "Charge 20?"). */
async function openReviewApproval(runId: string): Promise<string> {
  const lifecycle = createApprovalLifecycle({ database: h.database, jobs: h.queues })
  const { approval } = await withTenant(h.database, tenant, (tx) =>
    lifecycle.open(tx, runId, 2, {
      step: 'review',
      seq: 2,
      title: 'Charge 20?',
      details: null,
      approvers: null,
      required: 1,
      separationOfDuties: false,
      timeoutMs: null,
      onTimeout: 'expire',
      saveAs: 'review',
      inputSchema: null,
    }),
  )
  return approval.id
}

const fork = (runId: string, body: unknown) =>
  h.call({ method: 'POST', url: `/v1/runs/${runId}/fork`, token: alice, body })
const retry = (runId: string, body: unknown) =>
  h.call({ method: 'POST', url: `/v1/runs/${runId}/resume`, token: alice, body })

describe('a fork whose input changes approved material', () => {
  let source: { runId: string; approvalId: string }
  beforeAll(async () => {
    source = await approvedAndFailed()
  })

  it('starts where the approval was asked, so a person is asked again, and says so', async () => {
    const forked = expectJson(
      await fork(source.runId, { seq: 4, input: { total: 99 } }),
      202,
      RunView,
    )
    expect(forked).toMatchObject({ forkedFrom: source.runId, forkedSeq: 2, status: 'queued' })
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, forked.id))
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['run.queued', { graph: 'charge', version: 1, forkedFrom: source.runId, forkedSeq: 2 }],
    ])
    const audit = await withTenant(h.database, tenant, (tx) =>
      listAudit(tx, { targetId: forked.id, limit: 10 }),
    )
    expect(audit.items.map((e) => [e.action, e.details])).toEqual([
      [
        'run.forked',
        {
          graph: 'charge',
          version: 1,
          forkedFrom: source.runId,
          forkedSeq: 2,
          requestedSeq: 4,
          askAgain: [{ approvalId: source.approvalId, step: 'review' }],
        },
      ],
    ])
  })

  it('continues at the requested checkpoint when the input leaves the material as approved', async () => {
    for (const input of [{ note: 'urgent' }, { amount: 50 }, { total: 20 }]) {
      const forked = expectJson(await fork(source.runId, { seq: 4, input }), 202, RunView)
      expect(forked.forkedSeq, JSON.stringify(input)).toBe(4)
    }
    const plain = expectJson(await fork(source.runId, { seq: 4 }), 202, RunView)
    expect(plain.forkedSeq).toBe(4)
  })

  it('refuses fork input that holds a reserved key or the approval record key', async () => {
    const reserved = expectProblem(
      await fork(source.runId, { seq: 4, input: { __budget: 1000 } }),
      400,
      'validation-failed',
    )
    expect(reserved.errors?.map((e) => e.path)).toEqual(['/body/input/__budget'])
    const forged = expectProblem(
      await fork(source.runId, { seq: 1, input: { review: { status: 'approved' } } }),
      400,
      'validation-failed',
    )
    expect(forged.errors?.map((e) => e.path)).toEqual(['/body/input/review'])
  })
})

describe('a retry whose input changes approved material', () => {
  it('is refused with 409 naming the approval step, and a retry leaving it is taken', async () => {
    const { runId, approvalId } = await approvedAndFailed()
    const refused = expectProblem(
      await retry(runId, { input: { total: 99 } }),
      409,
      'approval-material-changed',
    ) as { step?: string; approvalId?: string; detail: string }
    expect(refused).toMatchObject({
      step: 'review',
      approvalId,
    })
    expect(refused.detail).toContain('"review"')
    const pending = async () =>
      (await withTenant(h.database, tenant, (tx) => getRun(tx, runId)))?.pendingResume
    expect(await pending()).toBeNull()
    expectJson(await retry(runId, { input: { note: 'try again' } }), 202, RunView)
    expect(await pending()).toMatchObject({
      reason: 'retry',
      atSeq: 5,
      input: { note: 'try again' },
    })
    expect((await h.queues.runs.getJob(`resume-retry-${runId}-5`))?.data).toEqual({
      runId,
      tenant,
      reason: 'retry',
      atSeq: 5,
    })
  })
})
