import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectPage, expectProblem, isoTime } from './support/expect-http.js'
import { startRecordingServer, type RecordingServer } from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  waitForStep,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide'

/** An approval gate: approved → POST /pay/<tag> on the recording server; otherwise decline. */
function gateSpec(server: string, review: Record<string, unknown> = {}) {
  return {
    entry: 'review',
    steps: {
      review: {
        kind: 'approval',
        title: 'Pay {{ amount }} to {{ tag }}?',
        details: "{ 'amount': amount, 'tag': tag }",
        ...review,
        next: { when: [{ if: "review.status = 'approved'", then: 'pay' }], else: 'decline' },
      },
      pay: {
        kind: 'http',
        method: 'POST',
        url: `${server}/pay/{{ tag }}`,
        body: "{ 'amount': amount }",
        saveAs: 'paid',
      },
      decline: { kind: 'set', values: { declined: 'true' } },
    },
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

describe('approvals over HTTP, decided by people, resuming runs', () => {
  let weave: WeaveProcesses
  let server: RecordingServer

  beforeAll(async () => {
    server = await startRecordingServer()
    weave = await startWeave({ env: { WEAVE_HTTP_ALLOW: server.host } })
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), server?.close()])
  })

  /** A new tenant with a registered gate, a run started by alice and waiting on its approval. */
  async function waitingGate(review: Record<string, unknown> = {}) {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const tag = randomBytes(4).toString('hex')
    const as = (subject: string) => weave.token(tenant, subject, SCOPES)
    const alice = await as('alice')
    expectJson(
      await weave.call('POST', '/v1/graphs', {
        token: alice,
        body: { name: 'gate', spec: gateSpec(server.url, review) },
      }),
      201,
    )
    const started = expectJson(
      await weave.call('POST', '/v1/runs', {
        token: alice,
        body: { graph: 'gate', input: { amount: 42, tag } },
      }),
      202,
    )
    const run = await waitForStep(weave, alice, started.id, 'review')
    expect(run.pendingApprovals).toHaveLength(1)
    const approvalId: string = run.pendingApprovals[0]
    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    const decide = async (subject: string, body: Record<string, unknown> = {}) =>
      weave.call('POST', `/v1/approvals/${approvalId}/decision`, {
        token: await as(subject),
        body: { decision: 'approve', ...body },
      })
    return { tenant, tag, as, alice, runId: started.id as string, approvalId, approval, decide }
  }

  it('shows the approval with what the approver sees and its hash, listed as pending', async () => {
    const { alice, runId, approvalId, approval, tag } = await waitingGate({
      required: 1,
      timeout: 'P1D',
    })
    expect(approval).toEqual({
      id: approvalId,
      runId,
      step: 'review',
      status: 'pending',
      title: `Pay 42 to ${tag}?`,
      details: { amount: 42, tag },
      materialHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      approvers: {},
      required: 1,
      separationOfDuties: false,
      decisions: [],
      expiresAt: isoTime,
      createdAt: isoTime,
      settledAt: null,
    })
    const expected = createHash('sha256')
      .update(canonicalJson({ title: approval.title, details: approval.details }))
      .digest('hex')
    expect(approval.materialHash).toBe(expected)
    const expiresIn = Date.parse(approval.expiresAt) - Date.parse(approval.createdAt)
    expect(Math.abs(expiresIn - 86_400_000)).toBeLessThan(60_000)

    const pending = expectPage(
      await weave.call('GET', `/v1/approvals?status=pending&runId=${runId}`, { token: alice }),
    )
    expect(pending.map((a) => a.id)).toEqual([approvalId])
    const approved = expectPage(
      await weave.call('GET', `/v1/approvals?status=approved&runId=${runId}`, { token: alice }),
    )
    expect(approved).toEqual([])
  })

  it('resumes an approved run on the approved branch with the decision record in its state', async () => {
    const { alice, runId, approvalId, approval, decide, tag } = await waitingGate()
    const res = await decide('bob', {
      comment: 'ok by me',
      input: { ticket: 'T-1' },
      materialHash: approval.materialHash,
    })
    const decided = expectJson(res, 200)
    expect(decided).toMatchObject({
      id: approvalId,
      status: 'approved',
      settledAt: isoTime,
      decisions: [{ by: 'bob', decision: 'approve', comment: 'ok by me', at: isoTime }],
    })

    const done = await waitForRun(weave, alice, runId, ['completed'])
    // The decider's input is kept in the decision record, never merged over the run's state.
    expect(done.state).toMatchObject({
      review: {
        status: 'approved',
        approvalId,
        decisions: [
          { by: 'bob', decision: 'approve', comment: 'ok by me', input: { ticket: 'T-1' } },
        ],
      },
      paid: { status: 200 },
    })
    expect(done.state).not.toHaveProperty('ticket')
    expect(done.state).not.toHaveProperty('declined')
    expect(server.requestsTo(`/pay/${tag}`)).toHaveLength(1)
    const types = (await runEvents(weave, alice, runId)).map((e) => e.type)
    expect(types.filter((t) => t === 'approval.decided')).toHaveLength(1)
    expect(types.filter((t) => t === 'run.resumed')).toHaveLength(1)
  })

  it('routes a rejected run to the else branch', async () => {
    const { alice, runId, decide, tag } = await waitingGate()
    const res = await decide('bob', { decision: 'reject', comment: 'no' })
    expect(expectJson(res, 200)).toMatchObject({ status: 'rejected', settledAt: isoTime })

    const done = await waitForRun(weave, alice, runId, ['completed'])
    expect(done).toMatchObject({ lastStep: 'decline' })
    expect(done.state).toMatchObject({
      declined: true,
      review: { status: 'rejected', decisions: [{ by: 'bob', decision: 'reject', comment: 'no' }] },
    })
    expect(done.state).not.toHaveProperty('paid')
    expect(server.requestsTo(`/pay/${tag}`)).toHaveLength(0)
  })

  it('waits for a quorum of two distinct subjects before resuming', async () => {
    const { alice, runId, approvalId, decide, tag } = await waitingGate({ required: 2 })
    const first = expectJson(await decide('bob'), 200)
    expect(first).toMatchObject({ status: 'pending', settledAt: null, required: 2 })
    expect(first.decisions).toHaveLength(1)

    // One decision does not resume: the run still waits on the approval.
    const run = expectJson(await weave.call('GET', `/v1/runs/${runId}`, { token: alice }), 200)
    expect(run).toMatchObject({ status: 'waiting', pendingApprovals: [approvalId] })
    expect((await runEvents(weave, alice, runId)).map((e) => e.type)).not.toContain('run.resumed')

    // The same subject again does not count twice.
    expectProblem(await decide('bob'), 409)

    const second = expectJson(await decide('carol', { comment: 'second' }), 200)
    expect(second).toMatchObject({ status: 'approved', settledAt: isoTime })
    expect(second.decisions.map((d: { by: string }) => d.by)).toEqual(['bob', 'carol'])

    const done = await waitForRun(weave, alice, runId, ['completed'])
    expect(done.state.review).toMatchObject({ status: 'approved' })
    expect(done.state.review.decisions.map((d: { by: string }) => d.by)).toEqual(['bob', 'carol'])
    expect(server.requestsTo(`/pay/${tag}`)).toHaveLength(1)
    const types = (await runEvents(weave, alice, runId)).map((e) => e.type)
    expect(types.filter((t) => t === 'approval.decided')).toHaveLength(2)
    expect(types.filter((t) => t === 'run.resumed')).toHaveLength(1)
  })

  it('refuses the starter under separation of duties (403) and accepts another subject', async () => {
    const { alice, runId, approvalId, decide } = await waitingGate({ separationOfDuties: true })
    const refused = await decide('alice')
    expectProblem(refused, 403)
    const still = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(still).toMatchObject({ status: 'pending', decisions: [], separationOfDuties: true })

    expect(expectJson(await decide('bob'), 200)).toMatchObject({ status: 'approved' })
    await waitForRun(weave, alice, runId, ['completed'])
  })

  it('refuses a subject outside approvers.subjects (403) and accepts a listed one', async () => {
    const { alice, runId, approvalId, decide } = await waitingGate({
      approvers: { subjects: ['carol'] },
    })
    expectProblem(await decide('mallory'), 403)
    expectProblem(await decide('mallory', { decision: 'reject' }), 403)
    const still = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(still).toMatchObject({
      status: 'pending',
      decisions: [],
      approvers: { subjects: ['carol'] },
    })

    expect(expectJson(await decide('carol'), 200)).toMatchObject({ status: 'approved' })
    await waitForRun(weave, alice, runId, ['completed'])
  })

  it('answers 409 to a second decision, by the same or another subject, once settled', async () => {
    const { alice, runId, approvalId, decide } = await waitingGate()
    expect(expectJson(await decide('bob'), 200)).toMatchObject({ status: 'approved' })
    expectProblem(await decide('bob'), 409)
    expectProblem(await decide('carol', { decision: 'reject' }), 409)
    const settled = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(settled).toMatchObject({ status: 'approved' })
    expect(settled.decisions).toHaveLength(1)
    await waitForRun(weave, alice, runId, ['completed'])
  })

  it('refuses a decision on material the approver did not see (409)', async () => {
    const { alice, runId, approvalId, approval, decide } = await waitingGate()
    const stale = 'a'.repeat(64)
    expect(stale).not.toBe(approval.materialHash)
    expectProblem(await decide('bob', { materialHash: stale }), 409)
    const still = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(still).toMatchObject({ status: 'pending', decisions: [] })

    expectProblem(await decide('bob', { materialHash: 'not-a-hash' }), 400)
    const ok = await decide('bob', { materialHash: approval.materialHash })
    expect(expectJson(ok, 200)).toMatchObject({ status: 'approved' })
    await waitForRun(weave, alice, runId, ['completed'])
  })

  it('settles once under 20 concurrent decisions and resumes the run exactly once', async () => {
    const { alice, runId, approvalId, decide, tag } = await waitingGate({ required: 1 })
    const subjects = Array.from({ length: 20 }, (_, i) => `approver-${i}`)
    const answers = await Promise.all(subjects.map((subject) => decide(subject)))

    const statuses = answers.map((a) => a.status).sort()
    expect(statuses).toEqual([200, ...Array<number>(19).fill(409)])
    const winner = answers.find((a) => a.status === 200)!
    expect(expectJson(winner, 200)).toMatchObject({ status: 'approved' })
    for (const loser of answers.filter((a) => a.status !== 200)) expectProblem(loser, 409)

    const done = await waitForRun(weave, alice, runId, ['completed'])
    expect(done.state.review.decisions).toHaveLength(1)
    expect(done.state.review.decisions[0].by).toBe(winner.body.decisions[0].by)
    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: alice }),
      200,
    )
    expect(approval.decisions).toHaveLength(1)

    const types = (await runEvents(weave, alice, runId)).map((e) => e.type)
    expect(types.filter((t) => t === 'approval.decided')).toHaveLength(1)
    expect(types.filter((t) => t === 'run.resumed')).toHaveLength(1)
    expect(types.filter((t) => t === 'run.completed')).toHaveLength(1)
    expect(server.requestsTo(`/pay/${tag}`)).toHaveLength(1)
  })
})
