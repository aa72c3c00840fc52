import { AuditPage, AuditVerification, type AuditEventView } from '../src/schemas/audit.js'
import { RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { PRICING_SPEC, executeWithKernel, moveRun, seedApproval } from './support/fixtures.js'
import {
  createHarness,
  expectJson,
  expectProblem,
  type Call,
  type Harness,
} from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_audit')
  token = await h.token(tenant, 'alice')
})
afterAll(async () => h.close())

type Event = AuditEventView
const detail = (event: Event | undefined, key: string) =>
  (event?.details as Record<string, unknown> | undefined)?.[key]
const auditEvents = async (query = '') =>
  expectJson(
    await h.call({ method: 'GET', url: `/v1/audit?limit=200${query}`, token }),
    200,
    AuditPage,
  ).items

/** Sends a request and returns the audit events it wrote. */
async function audited(call: Omit<Call, 'token'>, status: number): Promise<Event[]> {
  const before = (await auditEvents()).length
  const requestId = `req-${Math.random().toString(36).slice(2)}`
  const response = await h.call({ ...call, token, headers: { 'x-request-id': requestId } })
  expect(response.statusCode, response.body).toBe(status)
  const after = await auditEvents()
  const written = after.slice(0, after.length - before)
  for (const event of written) {
    expect(event).toMatchObject({ tenant, actor: 'alice', requestId, ip: '127.0.0.1' })
  }
  return written
}

describe('the audit log', () => {
  it('gets exactly one event from each state-changing request, none from a no-op', async () => {
    const register = {
      method: 'POST' as const,
      url: '/v1/graphs',
      body: { name: 'pricing', spec: PRICING_SPEC },
    }
    const [registered] = await audited(register, 201)
    expect(registered).toMatchObject({
      action: 'graph.registered',
      target: { kind: 'graph', id: 'pricing' },
    })
    expect(await audited(register, 200)).toEqual([])

    const started = await audited(
      { method: 'POST', url: '/v1/runs', body: { graph: 'pricing', input: { amount: 1 } } },
      202,
    )
    expect(started).toHaveLength(1)
    expect(started[0]).toMatchObject({
      action: 'run.started',
      target: { kind: 'run' },
      details: { graph: 'pricing', version: 1 },
    })
    const runId = started[0]?.target.id as string

    const cancelled = await audited({ method: 'POST', url: `/v1/runs/${runId}/cancel` }, 202)
    expect(cancelled.map((e) => [e.action, e.target.id])).toEqual([['run.cancelled', runId]])
    expect(await audited({ method: 'POST', url: `/v1/runs/${runId}/cancel` }, 409)).toEqual([])

    const { run, approvalId } = await seedApproval(h.database, tenant)
    const decided = await audited(
      { method: 'POST', url: `/v1/approvals/${approvalId}/decision`, body: { decision: 'reject' } },
      200,
    )
    expect(decided.map((e) => [e.action, e.target.kind, e.target.id])).toEqual([
      ['approval.decided', 'approval', approvalId],
    ])
    expect(decided[0]?.details).toMatchObject({
      runId: run.id,
      decision: 'reject',
      status: 'rejected',
    })

    const { run: waiting } = await seedApproval(h.database, tenant)
    expect(await audited({ method: 'POST', url: `/v1/runs/${waiting.id}/resume` }, 409)).toEqual([])
  })

  it('records resumes, forks and archives', async () => {
    const startRun = async (amount: number) =>
      expectJson(
        await h.call({
          method: 'POST',
          url: '/v1/runs',
          token,
          body: { graph: 'pricing', input: { amount } },
        }),
        202,
        RunView,
      )
    const failed = await startRun(2)
    await moveRun(h.database, tenant, failed.id, 'failed')
    const retried = await audited({ method: 'POST', url: `/v1/runs/${failed.id}/resume` }, 202)
    expect(retried.map((e) => [e.action, e.target.id, detail(e, 'reason')])).toEqual([
      ['run.resumed', failed.id, 'retry'],
    ])

    const waiting = await startRun(3)
    const waitingOn = {
      kind: 'input' as const,
      step: 'ask',
      atSeq: 0,
      prompt: null,
      schema: null,
      saveAs: null,
    }
    await moveRun(h.database, tenant, waiting.id, 'waiting', waitingOn)
    const resumed = await audited(
      { method: 'POST', url: `/v1/runs/${waiting.id}/resume`, body: { input: { ok: true } } },
      202,
    )
    expect(resumed.map((e) => [e.action, detail(e, 'reason')])).toEqual([['run.resumed', 'input']])

    const source = await startRun(4)
    await executeWithKernel(h.database, h.registry, tenant, source, { amount: 4 })
    const fork = { method: 'POST' as const, url: `/v1/runs/${source.id}/fork` }
    expect(await audited({ ...fork, body: { seq: 9 } }, 404)).toEqual([])
    const forked = await audited({ ...fork, body: { seq: 1 } }, 202)
    expect(forked.map((e) => [e.action, detail(e, 'forkedFrom'), detail(e, 'forkedSeq')])).toEqual([
      ['run.forked', source.id, 1],
    ])

    const archived = await audited({ method: 'DELETE', url: '/v1/graphs/pricing' }, 200)
    expect(archived.map((e) => [e.action, e.target.id])).toEqual([['graph.archived', 'pricing']])
    expect(await audited({ method: 'DELETE', url: '/v1/graphs/pricing' }, 200)).toEqual([])
    const register = {
      method: 'POST' as const,
      url: '/v1/graphs',
      body: { name: 'pricing', spec: PRICING_SPEC },
    }
    const restored = await audited(register, 200)
    expect(restored.map((e) => [e.action, detail(e, 'created')])).toEqual([
      ['graph.registered', false],
    ])
  })

  it('filters by action, actor, target and time, and pages with a cursor', async () => {
    const all = await auditEvents()
    expect(all.length).toBeGreaterThan(3)
    const seqs = all.map((e) => e.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))
    const decided = await auditEvents('&action=approval.decided')
    expect(decided.length).toBeGreaterThan(0)
    expect(decided.every((e) => e.action === 'approval.decided')).toBe(true)
    expect(await auditEvents('&actor=nobody')).toEqual([])
    const target = all[0]?.target.id as string
    expect((await auditEvents(`&targetId=${target}`)).every((e) => e.target.id === target)).toBe(
      true,
    )
    const oldest = all.at(-1) as Event
    const since = await auditEvents(`&since=${encodeURIComponent(oldest.at)}`)
    expect(since).toHaveLength(all.length)
    expect(await auditEvents(`&until=${encodeURIComponent(oldest.at)}`)).toEqual([])
    const page = expectJson(
      await h.call({ method: 'GET', url: '/v1/audit?limit=2', token }),
      200,
      AuditPage,
    )
    const next = expectJson(
      await h.call({ method: 'GET', url: `/v1/audit?limit=2&cursor=${page.nextCursor}`, token }),
      200,
      AuditPage,
    )
    expect(next.items[0]?.seq).toBe((page.items[1]?.seq as number) - 1)
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/audit?cursor=zzz', token }),
      400,
      'invalid-cursor',
    )
    expectProblem(await h.call({ method: 'GET', url: '/v1/audit?since=yesterday', token }), 400)
  })

  it('verifies the hash chain', async () => {
    const count = (await auditEvents()).length
    const verified = expectJson(
      await h.call({ method: 'GET', url: '/v1/audit/verify', token }),
      200,
      AuditVerification,
    )
    expect(verified).toEqual({ ok: true, checked: count, anchor: null })
  })
})
