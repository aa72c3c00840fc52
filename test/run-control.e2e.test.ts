import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectPage, expectProblem, isoTime, uuid } from './support/expect-http.js'
import { startRecordingServer, type RecordingServer } from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  waitForRunWhere,
  waitForStep,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide'

describe('run control: cancel, fork, retry and idempotent starts', () => {
  let weave: WeaveProcesses
  let server: RecordingServer

  beforeAll(async () => {
    server = await startRecordingServer()
    weave = await startWeave({ env: { WEAVE_HTTP_ALLOW: server.host } })
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), server?.close()])
  })

  /** A new tenant with `spec` registered as `name`: alice's token, and tokens for others. */
  async function tenantWith(name: string, spec: unknown) {
    const tenant = `t-${randomBytes(4).toString('hex')}`
    const as = (subject: string) => weave.token(tenant, subject, SCOPES)
    const token = await as('alice')
    expectJson(await weave.call('POST', '/v1/graphs', { token, body: { name, spec } }), 201)
    return { token, as }
  }

  async function start(token: string, graph: string, input: Record<string, unknown>) {
    const res = await weave.call('POST', '/v1/runs', { token, body: { graph, input } })
    return expectJson(res, 202).id as string
  }

  it('cancels a waiting run at once and cancels its pending approval', async () => {
    const { token, as } = await tenantWith('gate', {
      entry: 'review',
      steps: {
        review: { kind: 'approval', title: 'Go?', next: 'after' },
        after: { kind: 'set', values: { went: 'true' } },
      },
    })
    const runId = await start(token, 'gate', {})
    const waiting = await waitForStep(weave, token, runId, 'review')
    const approvalId: string = waiting.pendingApprovals[0]

    const res = await weave.call('POST', `/v1/runs/${runId}/cancel`, { token })
    expect(expectJson(res, 202)).toMatchObject({
      id: runId,
      status: 'cancelled',
      pendingApprovals: [],
      finishedAt: isoTime,
    })
    const run = expectJson(await weave.call('GET', `/v1/runs/${runId}`, { token }), 200)
    expect(run).toMatchObject({ status: 'cancelled', pendingApprovals: [] })
    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token }),
      200,
    )
    expect(approval).toMatchObject({ id: approvalId, status: 'cancelled' })

    // Nothing can move it any more.
    expectProblem(
      await weave.call('POST', `/v1/approvals/${approvalId}/decision`, {
        token: await as('bob'),
        body: { decision: 'approve' },
      }),
      409,
    )
    expectProblem(await weave.call('POST', `/v1/runs/${runId}/cancel`, { token }), 409)
    expectProblem(await weave.call('POST', `/v1/runs/${runId}/resume`, { token, body: {} }), 409)

    const events = await runEvents(weave, token, runId)
    expect(events.at(-1)?.type).toBe('run.cancelled')
    expect(events.map((e) => e.type)).not.toContain('run.resumed')
    const cancelled = expectPage(await weave.call('GET', '/v1/runs?status=cancelled', { token }))
    expect(cancelled.map((r) => r.id)).toEqual([runId])
  })

  it('cancels a running run at its next step boundary', async () => {
    const tag = randomBytes(4).toString('hex')
    server.on(`/slow/${tag}`, { delayMs: 1_500 })
    const { token } = await tenantWith('slow', {
      entry: 'slow',
      steps: {
        slow: { kind: 'http', method: 'POST', url: `${server.url}/slow/${tag}`, next: 'after' },
        after: { kind: 'http', method: 'POST', url: `${server.url}/after/${tag}` },
      },
    })
    const runId = await start(token, 'slow', {})
    await waitUntil(
      () => server.requestsTo(`/slow/${tag}`).length === 1,
      20_000,
      'the slow request to arrive',
    )

    const res = await weave.call('POST', `/v1/runs/${runId}/cancel`, { token })
    expect(expectJson(res, 202)).toMatchObject({
      id: runId,
      status: 'running',
      cancelRequested: true,
    })
    const cancelled = await waitForRun(weave, token, runId, ['cancelled'])
    // A cancelled stop names the step that was due next (docs/kernel.md, RunResult.lastStep).
    expect(cancelled).toMatchObject({
      stopReason: 'cancelled',
      lastStep: 'after',
      steps: 1,
      cancelRequested: true,
      finishedAt: isoTime,
    })
    // The step in flight finished and was kept; the next one never ran.
    expect(cancelled.state).toMatchObject({ slow: { status: 200 } })
    expect(server.requestsTo(`/after/${tag}`)).toHaveLength(0)
    const history = expectJson(await weave.call('GET', `/v1/runs/${runId}/history`, { token }), 200)
    expect(history.items).toEqual([
      { seq: 1, lastStep: 'slow', status: 'step_done', savedAt: isoTime },
    ])
    const types = (await runEvents(weave, token, runId)).map((e) => e.type)
    expect(types).toEqual(['run.queued', 'run.started', 'step.completed', 'run.cancelled'])
  })

  it('forks a completed run from history seq 1 with new input, leaving the source alone', async () => {
    const { token } = await tenantWith('calc', {
      entry: 'double',
      steps: {
        double: { kind: 'set', values: { doubled: 'n * 2' }, next: 'label' },
        label: {
          kind: 'set',
          values: { label: "'n=' & $string(n) & ' doubled=' & $string(doubled)" },
        },
      },
    })
    const sourceId = await start(token, 'calc', { n: 2 })
    const source = await waitForRun(weave, token, sourceId, ['completed'])
    expect(source.state).toEqual({ n: 2, doubled: 4, label: 'n=2 doubled=4' })
    const sourceHistory = expectJson(
      await weave.call('GET', `/v1/runs/${sourceId}/history`, { token }),
      200,
    )
    expect(sourceHistory.items.map((c: { seq: number }) => c.seq)).toEqual([1, 2])

    const res = await weave.call('POST', `/v1/runs/${sourceId}/fork`, {
      token,
      body: { seq: 1, input: { n: 10 } },
    })
    const fork = expectJson(res, 202)
    expect(fork).toMatchObject({
      id: uuid,
      graph: 'calc',
      version: 1,
      status: 'queued',
      forkedFrom: sourceId,
      forkedSeq: 1,
    })
    expect(fork.id).not.toBe(sourceId)
    expect(res.headers.get('location')).toBe(`/v1/runs/${fork.id}`)

    const forked = await waitForRun(weave, token, fork.id, ['completed'])
    // Continues after `double` (seq 1, doubled = 4) with n replaced: only `label` ran again.
    expect(forked.state).toEqual({ n: 10, doubled: 4, label: 'n=10 doubled=4' })
    expect(forked).toMatchObject({ forkedFrom: sourceId, forkedSeq: 1, lastStep: 'label' })
    const forkHistory = expectJson(
      await weave.call('GET', `/v1/runs/${fork.id}/history`, { token }),
      200,
    )
    expect(forkHistory.items.map((c: { seq: number }) => c.seq)).toEqual([2])

    const after = expectJson(await weave.call('GET', `/v1/runs/${sourceId}`, { token }), 200)
    expect(after.state).toEqual(source.state)
    expect(after).toMatchObject({ status: 'completed', updatedAt: source.updatedAt })
    expect(
      expectJson(await weave.call('GET', `/v1/runs/${sourceId}/history`, { token }), 200),
    ).toEqual(sourceHistory)

    expectProblem(
      await weave.call('POST', `/v1/runs/${sourceId}/fork`, { token, body: { seq: 99 } }),
      404,
    )
  })

  it('retries a failed run with resume, re-running only the failed step', async () => {
    const tag = randomBytes(4).toString('hex')
    server.on(`/flaky/${tag}`, { status: 503, body: { error: 'down' } })
    const { token } = await tenantWith('flaky', {
      entry: 'prep',
      steps: {
        prep: { kind: 'http', method: 'POST', url: `${server.url}/prep/${tag}`, next: 'call' },
        call: { kind: 'http', method: 'POST', url: `${server.url}/flaky/${tag}` },
      },
    })
    const runId = await start(token, 'flaky', {})
    const failed = await waitForRun(weave, token, runId, ['failed'])
    expect(failed).toMatchObject({
      lastStep: 'call',
      error: { message: expect.stringMatching(/503/) },
    })

    server.on(`/flaky/${tag}`, { status: 200, body: { fixed: true } })
    const res = await weave.call('POST', `/v1/runs/${runId}/resume`, { token })
    expect(expectJson(res, 202)).toMatchObject({ id: runId })
    // Until the worker takes the retry, the run still reads `failed`.
    const done = await waitForRunWhere(
      weave,
      token,
      runId,
      (run) => run.status === 'completed',
      'completed after the retry',
    )
    expect(done.state).toMatchObject({ call: { status: 200, body: { fixed: true } } })
    expect(server.requestsTo(`/prep/${tag}`)).toHaveLength(1)
    expect(server.requestsTo(`/flaky/${tag}`)).toHaveLength(2)
    const types = (await runEvents(weave, token, runId)).map((e) => e.type)
    expect(types.filter((t) => t === 'run.failed')).toHaveLength(1)
    expect(types.slice(-2)).toEqual(['step.completed', 'run.completed'])
    expect(types).toContain('run.resumed')
  })

  it('replays a start with the same Idempotency-Key and body, refuses another body (409)', async () => {
    const { token } = await tenantWith('calc', {
      entry: 'double',
      steps: { double: { kind: 'set', values: { doubled: 'n * 2' } } },
    })
    const key = `start-${randomBytes(6).toString('hex')}`
    const body = { graph: 'calc', input: { n: 3 } }
    const headers = { 'idempotency-key': key }

    const first = await weave.call('POST', '/v1/runs', { token, body, headers })
    const created = expectJson(first, 202)
    expect(first.headers.get('location')).toBe(`/v1/runs/${created.id}`)

    const again = await weave.call('POST', '/v1/runs', { token, body, headers })
    const replayed = expectJson(again, 200)
    expect(replayed).toMatchObject({ id: created.id, graph: 'calc', createdAt: created.createdAt })
    expect(again.headers.get('location')).toBe(`/v1/runs/${created.id}`)

    const conflict = await weave.call('POST', '/v1/runs', {
      token,
      body: { graph: 'calc', input: { n: 4 } },
      headers,
    })
    expectProblem(conflict, 409)

    const otherKey = await weave.call('POST', '/v1/runs', {
      token,
      body,
      headers: { 'idempotency-key': `${key}-2` },
    })
    expect(expectJson(otherKey, 202).id).not.toBe(created.id)

    await waitForRun(weave, token, created.id, ['completed'])
    const afterDone = await weave.call('POST', '/v1/runs', { token, body, headers })
    expect(expectJson(afterDone, 200)).toMatchObject({ id: created.id, status: 'completed' })
    const runs = expectPage(await weave.call('GET', '/v1/runs?graph=calc', { token }))
    expect(runs).toHaveLength(2)
  })
})
