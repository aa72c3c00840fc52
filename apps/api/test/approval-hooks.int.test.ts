import { findApprovalToken, getApproval, listAudit, listRunEvents, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApprovalHookResult } from '../src/schemas/approval-hooks.js'
import { randomTenant } from './support/database.js'
import { seedApproval, seedApprovalLinks, type SeedApprovalOptions } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_approval_hooks')
})
afterAll(async () => h?.close())

/** A waiting run's pending approval with its two links, as the worker issues them. */
async function linkedApproval(
  options: SeedApprovalOptions & { linkExpiresAt?: Date } = {},
): Promise<{
  approvalId: string
  runId: string
  recipient: string
  approve: string
  reject: string
}> {
  const { run, approvalId, materialHash } = await seedApproval(h.database, tenant, options)
  const tokens = await seedApprovalLinks(h.database, tenant, {
    approvalId,
    materialHash,
    ...(options.linkExpiresAt ? { expiresAt: options.linkExpiresAt } : {}),
  })
  const found = await findApprovalToken(h.database, tokens.approve)
  return {
    approvalId,
    runId: run.id,
    recipient: found?.recipient ?? '',
    approve: tokens.approve,
    reject: tokens.reject,
  }
}

const use = (token: string, body?: unknown, requestId?: string) =>
  h.call({
    method: 'POST',
    url: `/v1/approval-hooks/${token}`,
    ...(body === undefined ? {} : { body }),
    ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
  })

/** What a refused link must leave untouched. */
async function snapshot(approvalId: string, tokens: string[]) {
  const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
  const audit = await withTenant(h.database, tenant, (tx) => listAudit(tx, { limit: 200 }))
  const used = await Promise.all(
    tokens.map(async (t) => (await findApprovalToken(h.database, t))?.usedAt ?? null),
  )
  return {
    status: approval?.status,
    decisions: approval?.decisions.map((d) => [d.subject, d.decision]),
    auditCount: audit.items.length,
    used,
  }
}

describe('POST /v1/approval-hooks/{token}', () => {
  it('approves once as the link recipient, with one audit event, and resumes the run', async () => {
    const { approvalId, runId, recipient, approve, reject } = await linkedApproval()
    expect(recipient).toMatch(/^webhook:/)
    const response = await use(
      approve,
      { comment: 'from chat', input: { note: 'ok' } },
      'req-link-1',
    )
    expect(expectJson(response, 200, ApprovalHookResult)).toEqual({
      approvalId,
      decision: 'approve',
      status: 'approved',
    })
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.decisions.map((d) => [d.subject, d.decision, d.comment, d.input])).toEqual([
      [recipient, 'approve', 'from chat', { note: 'ok' }],
    ])
    const audit = await withTenant(h.database, tenant, (tx) => listAudit(tx, { limit: 200 }))
    const forRequest = audit.items.filter((e) => e.requestId === 'req-link-1')
    expect(forRequest).toHaveLength(1)
    expect(forRequest[0]).toMatchObject({
      action: 'approval.decided-by-link',
      actor: recipient,
      target: { kind: 'approval', id: approvalId },
      details: { decision: 'approve', status: 'approved' },
    })
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, runId))
    expect(events.map((e) => e.type)).toEqual(['approval.decided'])
    const job = await h.queues.runs.getJob(`resume-${approvalId}`)
    // The input travels with the decision in the approval step's record, never in the job.
    expect(job?.data).toEqual({
      runId,
      tenant,
      reason: 'approval-decided',
      atSeq: 2,
      approvalId,
    })

    const before = await snapshot(approvalId, [approve, reject])
    expectProblem(await use(approve), 409, 'approval-link-used')
    expectProblem(await use(reject), 409, 'approval-settled')
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
    expect(before.used[1]).toBeNull()
  })

  it('rejects with the reject link', async () => {
    const { approvalId, reject } = await linkedApproval()
    const result = expectJson(await use(reject), 200, ApprovalHookResult)
    expect(result).toEqual({ approvalId, decision: 'reject', status: 'rejected' })
  })

  it('refuses an altered or unknown token (404) and changes nothing', async () => {
    const { approvalId, approve, reject } = await linkedApproval()
    const before = await snapshot(approvalId, [approve, reject])
    const altered = approve.slice(0, -1) + (approve.endsWith('A') ? 'B' : 'A')
    for (const token of [altered, 'x', 'a'.repeat(90), '%E2%9C%93']) {
      expectProblem(await use(token), 404, 'approval-link-not-found')
    }
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
  })

  it('refuses an expired link (410) and changes nothing', async () => {
    const { approvalId, approve, reject } = await linkedApproval({
      linkExpiresAt: new Date(Date.now() - 1000),
    })
    const before = await snapshot(approvalId, [approve, reject])
    expectProblem(await use(approve), 410, 'approval-link-expired')
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
    expect(before.status).toBe('pending')
  })

  it('refuses a link of an approval settled through the API (409) and leaves the link unused', async () => {
    const { approvalId, approve, reject } = await linkedApproval()
    const bob = await h.token(tenant, 'bob')
    const decided = await h.call({
      method: 'POST',
      url: `/v1/approvals/${approvalId}/decision`,
      token: bob,
      body: { decision: 'reject' },
    })
    expect(decided.statusCode).toBe(200)
    const before = await snapshot(approvalId, [approve, reject])
    expectProblem(await use(approve), 409, 'approval-settled')
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
    expect(before.used).toEqual([null, null])
  })

  it('applies the approval’s rules: a restricted approval refuses the link (403)', async () => {
    const { approvalId, approve, reject } = await linkedApproval({
      approvers: { subjects: ['carol'] },
    })
    const before = await snapshot(approvalId, [approve, reject])
    expectProblem(await use(approve), 403, 'not-an-approver')
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
  })

  it('accepts a request without a body and refuses unknown body fields', async () => {
    const { approve } = await linkedApproval()
    expectProblem(await use(approve, { decision: 'reject' }), 400)
    const response = await h.app.inject({ method: 'POST', url: `/v1/approval-hooks/${approve}` })
    expect(expectJson(response, 200, ApprovalHookResult).status).toBe('approved')
  })

  it('refuses input with a reserved __ key (400 naming it) and leaves the link unused', async () => {
    const { approvalId, approve, reject } = await linkedApproval()
    const before = await snapshot(approvalId, [approve, reject])
    const refused = expectProblem(
      await use(approve, { input: { __budget: 1 } }),
      400,
      'validation-failed',
    )
    expect(refused.errors?.map((e) => e.path)).toEqual(['/body/input/__budget'])
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
  })

  it("refuses input that fails the approval step's schema (400) and leaves the link unused", async () => {
    const { approvalId, approve, reject } = await linkedApproval({
      inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
    })
    const before = await snapshot(approvalId, [approve, reject])
    const refused = expectProblem(await use(approve, { input: { note: 1 } }), 400)
    expect(refused.errors?.map((e) => e.path)).toEqual(['/body/input/note'])
    expect(await snapshot(approvalId, [approve, reject])).toEqual(before)
  })

  it('lets only one of two racing uses of a link through', async () => {
    const { approve } = await linkedApproval({ required: 2 })
    const answers = await Promise.all([use(approve), use(approve), use(approve)])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409])
  })
})
