import { getApproval, listAudit, listRunEvents, withTenant } from '@weave/db'
import { ApprovalPage, ApprovalView } from '../src/schemas/approvals.js'
import { RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { seedApproval } from './support/fixtures.js'
import { createApiServices } from '../src/services/api-services.js'
import { captureLog } from './support.js'
import {
  buildTestApp,
  callerFor,
  createHarness,
  expectJson,
  expectProblem,
  type Harness,
} from './support/harness.js'

let h: Harness
const tenant = randomTenant()
const tokens: Record<string, string> = {}

beforeAll(async () => {
  h = await createHarness('api_approvals')
  for (const subject of ['starter', 'bob', 'carol', 'dave']) {
    tokens[subject] = await h.token(tenant, subject)
  }
})
afterAll(async () => h.close())

const decide = (approvalId: string, subject: string, body: Record<string, unknown>) =>
  h.call({
    method: 'POST',
    url: `/v1/approvals/${approvalId}/decision`,
    token: tokens[subject] ?? '',
    body,
  })
const resumeJob = (approvalId: string) => h.queues.runs.getJob(`resume-${approvalId}`)

describe('reading approvals', () => {
  it('gets an approval and lists approvals by status and run', async () => {
    const { run, approvalId, materialHash } = await seedApproval(h.database, tenant)
    const approval = expectJson(
      await h.call({ method: 'GET', url: `/v1/approvals/${approvalId}`, token: tokens.bob }),
      200,
      ApprovalView,
    )
    expect(approval).toEqual({
      id: approvalId,
      runId: run.id,
      step: 'review',
      status: 'pending',
      title: 'Charge 20?',
      details: { amount: 10 },
      materialHash,
      approvers: {},
      required: 1,
      separationOfDuties: false,
      decisions: [],
      expiresAt: null,
      createdAt: expect.stringMatching(/Z$/),
      settledAt: null,
    })
    const byRun = expectJson(
      await h.call({
        method: 'GET',
        url: `/v1/approvals?runId=${run.id}&status=pending`,
        token: tokens.bob,
      }),
      200,
      ApprovalPage,
    )
    expect(byRun.items.map((a) => a.id)).toEqual([approvalId])
    const approved = expectJson(
      await h.call({
        method: 'GET',
        url: `/v1/approvals?runId=${run.id}&status=approved`,
        token: tokens.bob,
      }),
      200,
      ApprovalPage,
    )
    expect(approved.items).toEqual([])
    const view = expectJson(
      await h.call({ method: 'GET', url: `/v1/runs/${run.id}`, token: tokens.bob }),
      200,
      RunView,
    )
    expect(view.pendingApprovals).toEqual([approvalId])
    expect(view.waitingOn).toEqual({ kind: 'approval', step: 'review', approvalId, atSeq: 2 })
  })

  it('pages with a cursor and answers 400 for a bad one', async () => {
    await seedApproval(h.database, tenant)
    const first = expectJson(
      await h.call({ method: 'GET', url: '/v1/approvals?limit=1', token: tokens.bob }),
      200,
      ApprovalPage,
    )
    expect(first.items).toHaveLength(1)
    const second = expectJson(
      await h.call({
        method: 'GET',
        url: `/v1/approvals?limit=1&cursor=${first.nextCursor}`,
        token: tokens.bob,
      }),
      200,
      ApprovalPage,
    )
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id)
    const bad = await h.call({ method: 'GET', url: '/v1/approvals?cursor=%%%', token: tokens.bob })
    expectProblem(bad, 400)
  })
})

describe('POST /v1/approvals/{id}/decision', () => {
  it('approves, records the event, and resumes the run once with the outcome and decision input', async () => {
    const { run, approvalId } = await seedApproval(h.database, tenant)
    const response = await decide(approvalId, 'bob', {
      decision: 'approve',
      comment: 'fine',
      input: { approvedAmount: 20 },
    })
    const approval = expectJson(response, 200, ApprovalView)
    expect(approval.status).toBe('approved')
    expect(approval.settledAt).toEqual(expect.stringMatching(/Z$/))
    // The input is kept with the decision (the step's record), never merged into the state.
    expect(approval.decisions).toEqual([
      {
        by: 'bob',
        decision: 'approve',
        comment: 'fine',
        input: { approvedAmount: 20 },
        at: expect.any(String),
      },
    ])
    const job = await resumeJob(approvalId)
    expect(job?.name).toBe('resume')
    expect(job?.data).toEqual({
      runId: run.id,
      tenant,
      reason: 'approval-decided',
      atSeq: 2,
      approvalId,
    })
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, run.id))
    expect(events.map((e) => [e.type, (e.data as { status?: string }).status])).toEqual([
      ['approval.decided', 'approved'],
    ])
  })

  it('rejects with one rejection', async () => {
    const { approvalId } = await seedApproval(h.database, tenant, { required: 2 })
    expect(
      expectJson(await decide(approvalId, 'bob', { decision: 'reject' }), 200, ApprovalView).status,
    ).toBe('rejected')
    expect((await resumeJob(approvalId))?.data).toMatchObject({
      reason: 'approval-decided',
      approvalId,
    })
  })

  it('needs the required number of approvals from distinct subjects', async () => {
    const { approvalId } = await seedApproval(h.database, tenant, { required: 2 })
    const first = expectJson(
      await decide(approvalId, 'bob', { decision: 'approve' }),
      200,
      ApprovalView,
    )
    expect(first.status).toBe('pending')
    expect(await resumeJob(approvalId)).toBeUndefined()
    expectProblem(await decide(approvalId, 'bob', { decision: 'approve' }), 409, 'already-decided')
    const second = expectJson(
      await decide(approvalId, 'carol', { decision: 'approve' }),
      200,
      ApprovalView,
    )
    expect(second.status).toBe('approved')
    expect(second.decisions.map((d: { by: string }) => d.by)).toEqual(['bob', 'carol'])
    expect((await resumeJob(approvalId))?.data.approvalId).toBe(approvalId)
    expectProblem(
      await decide(approvalId, 'dave', { decision: 'approve' }),
      409,
      'approval-settled',
    )
  })

  it("refuses the run's starter under separation of duties with 403", async () => {
    const { approvalId } = await seedApproval(h.database, tenant, { separationOfDuties: true })
    expectProblem(
      await decide(approvalId, 'starter', { decision: 'approve' }),
      403,
      'separation-of-duties',
    )
    expectJson(await decide(approvalId, 'bob', { decision: 'approve' }), 200)
  })

  it('refuses a subject who is not an approver with 403', async () => {
    const { approvalId } = await seedApproval(h.database, tenant, {
      approvers: { subjects: ['carol'] },
    })
    expectProblem(await decide(approvalId, 'bob', { decision: 'approve' }), 403, 'not-an-approver')
    expectJson(await decide(approvalId, 'carol', { decision: 'approve' }), 200)
  })

  it('answers 409 for a materialHash other than the approval shows', async () => {
    const { approvalId, materialHash } = await seedApproval(h.database, tenant)
    const stale = await decide(approvalId, 'bob', {
      decision: 'approve',
      materialHash: 'a'.repeat(64),
    })
    expectProblem(stale, 409, 'material-mismatch')
    expect(await resumeJob(approvalId)).toBeUndefined()
    expectJson(await decide(approvalId, 'bob', { decision: 'approve', materialHash }), 200)
  })

  it('answers 409 for an expired approval, 404 for unknown ids and 400 for a bad body', async () => {
    const { approvalId } = await seedApproval(h.database, tenant, {
      expiresAt: new Date(Date.now() - 1000),
    })
    expectProblem(await decide(approvalId, 'bob', { decision: 'approve' }), 409, 'approval-expired')
    expectProblem(
      await decide(crypto.randomUUID(), 'bob', { decision: 'approve' }),
      404,
      'approval-not-found',
    )
    expectProblem(await decide('nope', 'bob', { decision: 'approve' }), 404, 'approval-not-found')
    const bad = expectProblem(await decide(approvalId, 'bob', { decision: 'maybe' }), 400)
    expect(bad.errors?.[0]?.path).toBe('/body/decision')
    const nul = await decide(approvalId, 'bob', { decision: 'approve', comment: 'a\u0000' })
    expect(expectProblem(nul, 400).errors?.[0]?.path).toBe('/body/comment')
  })

  it('settles once and enqueues exactly one resume under 20 concurrent decisions', async () => {
    const { approvalId, run } = await seedApproval(h.database, tenant)
    const subjects = Array.from({ length: 20 }, (_, i) => `approver-${i}`)
    const deciders = await Promise.all(subjects.map((s) => h.token(tenant, s)))
    const responses = await Promise.all(
      deciders.map((token) =>
        h.call({
          method: 'POST',
          url: `/v1/approvals/${approvalId}/decision`,
          token,
          body: { decision: 'approve' },
        }),
      ),
    )
    const statuses = responses.map((r) => r.statusCode).sort()
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(19)
    const jobs = await h.queues.runs.getJobs(['waiting', 'delayed', 'active'])
    expect(jobs.filter((job) => job.data.runId === run.id).map((job) => job.id)).toEqual([
      `resume-${approvalId}`,
    ])
  })
})

describe('decision input', () => {
  const REASON_SCHEMA = {
    type: 'object',
    required: ['reason'],
    properties: { reason: { type: 'string' } },
  }

  it('refuses a top-level __ key with 400 naming it, and decides nothing', async () => {
    const { approvalId } = await seedApproval(h.database, tenant)
    const refused = expectProblem(
      await decide(approvalId, 'bob', { decision: 'approve', input: { ok: 1, __yield: true } }),
      400,
      'validation-failed',
    )
    expect(refused.errors).toEqual([{ path: '/body/input/__yield', message: expect.any(String) }])
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval).toMatchObject({ status: 'pending', decisions: [] })
  })

  it("refuses input that fails the approval step's schema with 400 naming the path", async () => {
    const { approvalId } = await seedApproval(h.database, tenant, { inputSchema: REASON_SCHEMA })
    const refused = expectProblem(
      await decide(approvalId, 'bob', { decision: 'approve', input: { reason: 7 } }),
      400,
      'validation-failed',
    )
    expect(refused.errors?.map((e) => e.path)).toEqual(['/body/input/reason'])
    expect(await resumeJob(approvalId)).toBeUndefined()
    const decided = expectJson(
      await decide(approvalId, 'bob', { decision: 'approve', input: { reason: 'checked' } }),
      200,
      ApprovalView,
    )
    expect(decided.decisions[0]?.input).toEqual({ reason: 'checked' })
  })
})

describe('decision Idempotency-Key', () => {
  const decideWithKey = (approvalId: string, key: string, body: Record<string, unknown>) =>
    h.call({
      method: 'POST',
      url: `/v1/approvals/${approvalId}/decision`,
      token: tokens.bob,
      body,
      headers: { 'idempotency-key': key },
    })

  it('answers a retried identical decision as the first, and 409 for the key with another body', async () => {
    const { run, approvalId } = await seedApproval(h.database, tenant, { required: 2 })
    const body = { decision: 'approve', comment: 'once' }
    const firstResponse = await decideWithKey(approvalId, 'k-1', body)
    expect(firstResponse.headers['idempotent-replayed']).toBeUndefined()
    const first = expectJson(firstResponse, 200, ApprovalView)
    // The same body with its keys in another order is the same request.
    const retriedResponse = await decideWithKey(approvalId, 'k-1', {
      comment: 'once',
      decision: 'approve',
    })
    expect(retriedResponse.headers['idempotent-replayed']).toBe('true')
    const retried = expectJson(retriedResponse, 200, ApprovalView)
    expect(retried).toEqual(first)
    expect(retried.decisions).toHaveLength(1)
    expectProblem(
      await decideWithKey(approvalId, 'k-1', { decision: 'reject' }),
      409,
      'idempotency-conflict',
    )
    expectProblem(await decideWithKey(approvalId, 'k-2', body), 409, 'already-decided')
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, run.id))
    expect(events.map((e) => e.type)).toEqual(['approval.decided'])
    const audit = await withTenant(h.database, tenant, (tx) =>
      listAudit(tx, { targetId: approvalId, limit: 50 }),
    )
    expect(audit.items).toHaveLength(1)
  })
})

describe('a decision whose resume cannot be enqueued', () => {
  it('still answers 200: the decision stands and the reconciler adds the job', async () => {
    const log = captureLog()
    const services = createApiServices({
      database: h.database,
      jobs: {
        enqueue: async () => {
          throw new Error('redis away')
        },
      },
      registry: h.registry,
      log: log.log,
    })
    const app = await buildTestApp(services)
    try {
      const { approvalId } = await seedApproval(h.database, tenant)
      const response = await callerFor(app)({
        method: 'POST',
        url: `/v1/approvals/${approvalId}/decision`,
        token: tokens.bob,
        body: { decision: 'approve' },
      })
      expect(expectJson(response, 200, ApprovalView).status).toBe('approved')
      expect(log.lines().some((line) => line.includes('the reconciler will enqueue it'))).toBe(true)
    } finally {
      await app.close()
    }
  })
})
