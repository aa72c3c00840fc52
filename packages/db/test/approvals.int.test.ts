import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DecideApprovalInput,
  type OpenApprovalInput,
  approvalMaterialHash,
  cancelApproval,
  decideApproval,
  expireApproval,
  getApproval,
  getRun,
  listApprovals,
  openApproval,
  requestRunCancel,
  transitionRun,
  withTenant,
} from '@weave/db'
import {
  type TestDatabase,
  createTestDatabase,
  randomTenant,
  seedApprovalIn,
  seedRunIn,
} from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_approvals')
})

afterAll(async () => {
  await t?.drop()
})

function open(tenant: string, options: Partial<OpenApprovalInput> = {}) {
  return seedApprovalIn(t.app, tenant, options)
}

function decide(tenant: string, input: Partial<DecideApprovalInput> & { approvalId: string }) {
  return withTenant(t.app, tenant, (tx) =>
    decideApproval(tx, { subject: 'alice', subjectScopes: [], decision: 'approve', ...input }),
  )
}

describe('openApproval', () => {
  it('is idempotent for the same run, step and checkpoint seq', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const input = { runId: run.id, step: 'review', seq: 3, title: 'Ship?', details: { n: 1 } }
    const first = await withTenant(t.app, tenant, (tx) => openApproval(tx, input))
    const again = await withTenant(t.app, tenant, (tx) => openApproval(tx, input))
    expect(first.created).toBe(true)
    expect(again.created).toBe(false)
    expect(again.approval.id).toBe(first.approval.id)
    expect(first.approval).toMatchObject({
      status: 'pending',
      saveAs: 'review',
      required: 1,
      materialHash: approvalMaterialHash('Ship?', { n: 1 }),
    })
  })

  it('refuses a run of another tenant', async () => {
    const run = await seedRunIn(t.app, randomTenant())
    await expect(
      withTenant(t.app, randomTenant(), (tx) =>
        openApproval(tx, { runId: run.id, step: 's', seq: 1, title: 'x' }),
      ),
    ).rejects.toMatchObject({ code: 'run-not-found' })
  })
})

describe('decideApproval', () => {
  it('settles an approval once when 20 subjects decide concurrently', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => decide(tenant, { approvalId, subject: `s${i}` })),
    )
    const settled = results.filter((r) => r.status === 'fulfilled' && r.value.settled !== null)
    const refused = results.filter((r) => r.status === 'rejected')
    expect(settled).toHaveLength(1)
    expect(refused).toHaveLength(19)
    for (const r of refused) {
      expect(r.reason).toMatchObject({ code: 'approval-settled' })
    }
    const approval = await withTenant(t.app, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.status).toBe('approved')
    expect(approval?.decisions).toHaveLength(1)
  })

  it('settles with the outcome the run resumes with', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    const result = await decide(tenant, { approvalId, comment: 'fine', input: { note: 1 } })
    expect(result.settled).toEqual({
      status: 'approved',
      approvalId,
      decisions: [
        {
          by: 'alice',
          decision: 'approve',
          comment: 'fine',
          input: { note: 1 },
          at: expect.any(String),
        },
      ],
    })
    expect(result.didSettle).toBe(true)
    expect(result.decision).toMatchObject({ subject: 'alice', input: { note: 1 } })
    expect(result.approval).toMatchObject({ status: 'approved', settledAt: expect.any(Date) })
  })

  it("keeps each decider's input in its own decision, checked against the step's schema", async () => {
    const tenant = randomTenant()
    const inputSchema = {
      type: 'object',
      properties: { reason: { type: 'string', maxLength: 20 } },
      additionalProperties: false,
    }
    const { approvalId } = await open(tenant, { required: 2, inputSchema })
    await expect(
      decide(tenant, { approvalId, subject: 'alice', input: { amount: 999999 } }),
    ).rejects.toMatchObject({
      code: 'decision-input-invalid',
      problems: [{ path: '/amount', message: 'unknown field' }],
    })
    await expect(
      decide(tenant, { approvalId, subject: 'alice', input: { __budget_remaining: 1 } }),
    ).rejects.toMatchObject({
      code: 'decision-input-invalid',
      problems: expect.arrayContaining([
        { path: '/__budget_remaining', message: expect.any(String) },
      ]),
    })
    await decide(tenant, { approvalId, subject: 'alice', input: { reason: 'fine by me' } })
    const second = await decide(tenant, { approvalId, subject: 'bob', input: { reason: 'ok' } })
    expect(second.settled?.decisions.map((d) => [d.by, d.input])).toEqual([
      ['alice', { reason: 'fine by me' }],
      ['bob', { reason: 'ok' }],
    ])
  })

  it('answers a retried decision with the same idempotency key as the first, even once settled', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    const request = { approvalId, idempotencyKey: 'k-1', requestHash: 'h-1' }
    const first = await decide(tenant, request)
    const again = await decide(tenant, request)
    expect(again.replayed).toBe(true)
    expect(again.didSettle).toBe(false)
    expect(again.decision.id).toBe(first.decision.id)
    expect(again.settled).toEqual(first.settled)
    await expect(decide(tenant, { ...request, requestHash: 'h-2' })).rejects.toMatchObject({
      code: 'idempotency-conflict',
    })
    await expect(decide(tenant, { approvalId, idempotencyKey: 'k-2' })).rejects.toMatchObject({
      code: 'approval-settled',
    })
  })

  it('needs `required` approvals from distinct subjects', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 2 })
    const first = await decide(tenant, { approvalId, subject: 'alice' })
    expect(first.settled).toBeNull()
    expect(first.approval.status).toBe('pending')
    await expect(decide(tenant, { approvalId, subject: 'alice' })).rejects.toMatchObject({
      code: 'already-decided',
      name: 'DecisionConflictError',
    })
    const second = await decide(tenant, { approvalId, subject: 'bob' })
    expect(second.settled?.status).toBe('approved')
    expect(second.settled?.decisions.map((d) => d.by)).toEqual(['alice', 'bob'])
  })

  it('settles as rejected on one rejection', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 3 })
    await decide(tenant, { approvalId, subject: 'alice' })
    const result = await decide(tenant, { approvalId, subject: 'bob', decision: 'reject' })
    expect(result.settled?.status).toBe('rejected')
  })

  it('refuses a decision on a settled approval', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    await decide(tenant, { approvalId, subject: 'alice', decision: 'reject' })
    await expect(decide(tenant, { approvalId, subject: 'bob' })).rejects.toMatchObject({
      code: 'approval-settled',
    })
  })

  it('forbids the run’s starter under separationOfDuties', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { separationOfDuties: true })
    await expect(decide(tenant, { approvalId, subject: 'starter' })).rejects.toMatchObject({
      code: 'separation-of-duties',
      name: 'DecisionForbiddenError',
    })
    const other = await decide(tenant, { approvalId, subject: 'alice' })
    expect(other.settled?.status).toBe('approved')
  })

  it('lets the starter decide without separationOfDuties', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    expect((await decide(tenant, { approvalId, subject: 'starter' })).settled?.status).toBe(
      'approved',
    )
  })

  it('admits only listed subjects or scopes when approvers are set', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, {
      approvers: { subjects: ['carol'], scopes: ['finance'] },
      required: 2,
    })
    await expect(decide(tenant, { approvalId, subject: 'alice' })).rejects.toMatchObject({
      code: 'not-an-approver',
    })
    await decide(tenant, { approvalId, subject: 'carol' })
    const byScope = await decide(tenant, {
      approvalId,
      subject: 'dave',
      subjectScopes: ['approvals:decide', 'finance'],
    })
    expect(byScope.settled?.status).toBe('approved')
  })

  it('refuses a decision naming other material', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { details: { amount: 10 } })
    await expect(
      decide(tenant, {
        approvalId,
        materialHash: approvalMaterialHash('Refund 10?', { amount: 99 }),
      }),
    ).rejects.toMatchObject({ code: 'material-mismatch' })
    const ok = await decide(tenant, {
      approvalId,
      materialHash: approvalMaterialHash('Refund 10?', { amount: 10 }),
    })
    expect(ok.settled?.status).toBe('approved')
  })

  it('refuses a decision after the approval’s expiry', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { expiresAt: new Date(Date.now() - 1000) })
    await expect(decide(tenant, { approvalId })).rejects.toMatchObject({
      code: 'approval-expired',
    })
  })

  it('does not find an approval of another tenant, nor a malformed id', async () => {
    const { approvalId } = await open(randomTenant())
    await expect(decide(randomTenant(), { approvalId })).rejects.toMatchObject({
      code: 'approval-not-found',
      name: 'NotFoundError',
    })
    await expect(decide(randomTenant(), { approvalId: 'nope' })).rejects.toMatchObject({
      code: 'approval-not-found',
    })
  })
})

describe('expiring and cancelling', () => {
  it('expires a pending approval once', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    const first = await withTenant(t.app, tenant, (tx) => expireApproval(tx, approvalId))
    const again = await withTenant(t.app, tenant, (tx) => expireApproval(tx, approvalId))
    expect(first?.status).toBe('expired')
    expect(again).toBeNull()
    await expect(decide(tenant, { approvalId })).rejects.toMatchObject({ code: 'approval-settled' })
  })

  it('does not cancel a settled approval', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    await decide(tenant, { approvalId })
    expect(await withTenant(t.app, tenant, (tx) => cancelApproval(tx, approvalId))).toBeNull()
  })

  it('cancels a waiting run and its pending approvals at once', async () => {
    const tenant = randomTenant()
    const { approvalId, runId } = await open(tenant)
    await withTenant(t.app, tenant, async (tx) => {
      await transitionRun(tx, runId, ['queued'], 'running')
      await transitionRun(tx, runId, ['running'], 'waiting', {
        waitingOn: { kind: 'approval', step: 'review', approvalId, atSeq: 1 },
      })
    })
    const result = await withTenant(t.app, tenant, (tx) => requestRunCancel(tx, runId))
    expect(result?.cancelledNow).toBe(true)
    expect(result?.run).toMatchObject({ status: 'cancelled', waitingOn: null })
    expect(result?.cancelledApprovals.map((a) => a.id)).toEqual([approvalId])
    const approval = await withTenant(t.app, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.status).toBe('cancelled')
    expect((await withTenant(t.app, tenant, (tx) => getRun(tx, runId)))?.finishedAt).toBeInstanceOf(
      Date,
    )
  })
})

describe('listApprovals', () => {
  it('filters by status and run, newest first, with a cursor', async () => {
    const tenant = randomTenant()
    const opened: { approvalId: string; runId: string }[] = []
    for (let i = 0; i < 3; i++) opened.push(await open(tenant))
    await decide(tenant, { approvalId: opened[0]!.approvalId })
    await withTenant(t.app, tenant, async (tx) => {
      const pending = await listApprovals(tx, { status: 'pending' })
      expect(new Set(pending.items.map((a) => a.id))).toEqual(
        new Set([opened[1]!.approvalId, opened[2]!.approvalId]),
      )
      const ofRun = await listApprovals(tx, { runId: opened[0]!.runId })
      expect(ofRun.items).toHaveLength(1)
      expect(ofRun.items[0]?.decisions).toHaveLength(1)
      const first = await listApprovals(tx, { limit: 2 })
      const second = await listApprovals(tx, { limit: 2, cursor: first.nextCursor })
      const all = [...first.items, ...second.items]
      const newestFirst = [...all].sort(
        (x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (y.id < x.id ? -1 : 1),
      )
      expect(all.map((a) => a.id)).toEqual(newestFirst.map((a) => a.id))
      expect(new Set(all.map((a) => a.id))).toEqual(new Set(opened.map((o) => o.approvalId)))
      expect(second.nextCursor).toBeNull()
    })
  })
})
