import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectProblem, isoTime, uuid } from './support/expect-http.js'
import { startRecordingServer, type RecordingServer } from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  waitForStep,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide'

const CHILD_SPEC = {
  entry: 'inc',
  steps: { inc: { kind: 'set', values: { childOut: 'x + 1' } } },
}

function everyKindSpec(server: string) {
  return {
    entry: 'start',
    steps: {
      start: { kind: 'set', values: { greeting: "'hi ' & name" }, next: 'ask' },
      ask: {
        kind: 'input',
        prompt: 'Colour for {{ name }}?',
        schema: {
          type: 'object',
          required: ['colour'],
          properties: { colour: { type: 'string' } },
        },
        saveAs: 'asked',
        next: 'review',
      },
      review: { kind: 'approval', title: 'Ship {{ n }} for {{ name }}?', next: 'call' },
      call: {
        kind: 'http',
        method: 'POST',
        url: `${server}/hook/{{ name }}`,
        headers: { 'x-colour': '{{ asked.colour }}' },
        body: "{ 'n': n, 'colour': asked.colour }",
        saveAs: 'called',
        next: 'pause',
      },
      pause: { kind: 'wait', duration: 'PT1S', next: 'sub' },
      sub: { kind: 'subgraph', graph: 'child', input: "{ 'x': n }", saveAs: 'child', next: 'both' },
      both: {
        kind: 'parallel',
        saveAs: 'both',
        branches: {
          left: { kind: 'set', values: { tenfold: 'n * 10' } },
          right: { kind: 'http', method: 'GET', url: `${server}/right` },
        },
        next: 'double',
      },
      double: { kind: 'handler', name: 'test.double' },
    },
  }
}

describe('every step kind in one run', () => {
  let weave: WeaveProcesses
  let server: RecordingServer

  beforeAll(async () => {
    server = await startRecordingServer()
    weave = await startWeave({
      env: { WEAVE_HANDLERS: 'test/support/e2e-handlers.ts', WEAVE_HTTP_ALLOW: '127.0.0.1' },
    })
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), server?.close()])
  })

  const newTenant = () => `t-${randomBytes(4).toString('hex')}`
  async function tenantToken() {
    return weave.token(newTenant(), 'alice', SCOPES)
  }

  it('runs set, input, approval, http, wait, subgraph, parallel and handler to completion', async () => {
    const tenant = newTenant()
    const token = await weave.token(tenant, 'alice', SCOPES)
    const approver = await weave.token(tenant, 'bob', SCOPES)
    for (const [name, spec] of [
      ['child', CHILD_SPEC],
      ['everything', everyKindSpec(server.url)],
    ] as const) {
      expectJson(await weave.call('POST', '/v1/graphs', { token, body: { name, spec } }), 201)
    }

    const started = await weave.call('POST', '/v1/runs', {
      token,
      body: { graph: 'everything', input: { n: 5, name: 'ada' } },
    })
    const queued = expectJson(started, 202)
    expect(queued).toMatchObject({
      id: uuid,
      graph: 'everything',
      version: 1,
      status: 'queued',
      createdBy: 'alice',
      createdAt: isoTime,
      forkedFrom: null,
    })
    expect(started.headers.get('location')).toBe(`/v1/runs/${queued.id}`)
    const runId: string = queued.id

    // input: the run waits with the prompt and schema; bad input is refused; good input resumes.
    const atInput = await waitForStep(weave, token, runId, 'ask')
    expect(atInput.waitingOn).toMatchObject({
      kind: 'input',
      step: 'ask',
      prompt: 'Colour for ada?',
    })
    expect(atInput.state).toMatchObject({ n: 5, name: 'ada', greeting: 'hi ada' })
    const bad = await weave.call('POST', `/v1/runs/${runId}/resume`, {
      token,
      body: { input: { colour: 7 } },
    })
    expect(expectProblem(bad, 400).errors).toEqual([
      expect.objectContaining({ path: '/body/input/colour' }),
    ])
    const resumed = await weave.call('POST', `/v1/runs/${runId}/resume`, {
      token,
      body: { input: { colour: 'teal' } },
    })
    expect(expectJson(resumed, 202)).toMatchObject({ id: runId })

    // approval: decided by someone else; the run goes on.
    const atReview = await waitForStep(weave, token, runId, 'review')
    expect(atReview.pendingApprovals).toHaveLength(1)
    const approvalId: string = atReview.pendingApprovals[0]
    expect(atReview.waitingOn).toMatchObject({ kind: 'approval', step: 'review', approvalId })
    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token }),
      200,
    )
    expect(approval).toMatchObject({ runId, step: 'review', title: 'Ship 5 for ada?' })
    const decided = await weave.call('POST', `/v1/approvals/${approvalId}/decision`, {
      token: approver,
      body: { decision: 'approve', comment: 'fine', materialHash: approval.materialHash },
    })
    expect(expectJson(decided, 200)).toMatchObject({ status: 'approved' })

    // wait (PT1S), subgraph, parallel and handler follow without help.
    const done = await waitForRun(weave, token, runId, ['completed'])
    expect(done).toMatchObject({
      status: 'completed',
      stopReason: 'completed',
      lastStep: 'double',
      error: null,
      pendingApprovals: [],
      waitingOn: null,
      finishedAt: isoTime,
    })
    expect(done.state).toMatchObject({
      n: 5,
      name: 'ada',
      greeting: 'hi ada',
      asked: { colour: 'teal' },
      review: {
        status: 'approved',
        decisions: [{ by: 'bob', decision: 'approve', comment: 'fine', at: isoTime }],
      },
      called: { status: 200, body: { ok: true, path: '/hook/ada' } },
      pause: { until: isoTime },
      child: { x: 5, childOut: 6 },
      both: {
        left: { tenfold: 50 },
        right: { right: { status: 200, body: { ok: true, path: '/right' } } },
      },
      doubled: 10,
    })
    expect(Object.keys(done.state).filter((k) => k.startsWith('__'))).toEqual([])

    // http: the request carried the body, the templated header and the idempotency key.
    const history = expectJson(await weave.call('GET', `/v1/runs/${runId}/history`, { token }), 200)
    const seqs = history.items.map((c: { seq: number }) => c.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(new Set(seqs).size).toBe(seqs.length)
    const callSeq = history.items.find(
      (c: { lastStep: string; status: string }) =>
        c.lastStep === 'call' && c.status === 'step_done',
    ).seq
    const hooks = server.requestsTo('/hook/ada')
    expect(hooks).toHaveLength(1)
    expect(hooks[0]).toMatchObject({
      method: 'POST',
      idempotencyKey: `${runId}:call:${callSeq}`,
      body: { n: 5, colour: 'teal' },
    })
    expect(hooks[0]!.headers['x-colour']).toBe('teal')
    expect(hooks[0]!.headers['content-type']).toMatch(/^application\/json/)
    const right = server.requestsTo('/right')
    expect(right).toHaveLength(1)
    expect(right[0]!.method).toBe('GET')
    expect(right[0]!.idempotencyKey).toMatch(new RegExp(`^${runId}.*:\\d+$`))

    // The checkpoint of the input step holds the state as it was then.
    const askSeq = history.items.find(
      (c: { lastStep: string; status: string }) => c.lastStep === 'ask' && c.status === 'step_done',
    ).seq
    const checkpoint = expectJson(
      await weave.call('GET', `/v1/runs/${runId}/history/${askSeq}`, { token }),
      200,
    )
    expect(checkpoint).toMatchObject({
      seq: askSeq,
      lastStep: 'ask',
      status: 'step_done',
      savedAt: isoTime,
      state: { asked: { colour: 'teal' } },
    })
    expect(checkpoint.state).not.toHaveProperty('called')

    // Events, in order.
    const events = await runEvents(weave, token, runId)
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1))
    for (const e of events) expect(e.at).toEqual(isoTime)
    const timeline = events.map((e) =>
      e.type === 'step.completed' ? `step:${e.data.step}` : e.type,
    )
    // A step that yields is reported too (its yielded checkpoint), and again when it completes;
    // a subgraph's steps are reported under the parent step's path.
    expect(timeline).toEqual([
      'run.queued',
      'run.started',
      'step:start',
      'step:ask',
      'run.waiting',
      'run.resumed',
      'step:ask',
      'step:review',
      'approval.requested',
      'run.waiting',
      'approval.decided',
      'run.resumed',
      'step:review',
      'step:call',
      'step:pause',
      'run.waiting',
      'run.resumed',
      'step:pause',
      'step:sub/inc',
      'step:sub',
      'step:both',
      'step:double',
      'run.completed',
    ])
    // Top-level step events carry the seqs of the run's checkpoints, in the same order.
    const stepSeqs = events
      .filter((e) => e.type === 'step.completed' && !String(e.data.step).includes('/'))
      .map((e) => e.data.seq)
    expect(stepSeqs).toEqual(seqs)
    const waits = events.filter((e) => e.type === 'run.waiting').map((e) => e.data.kind)
    expect(waits).toEqual(['input', 'approval', 'wait'])
    // The timer resumed the run no earlier than the wait step's `until`, a second after it began.
    const waitEvent = events.find((e) => e.type === 'run.waiting' && e.data.kind === 'wait')!
    const afterWait = events.find((e) => e.type === 'run.resumed' && e.id > waitEvent.id)!
    expect(Date.parse(afterWait.at)).toBeGreaterThanOrEqual(Date.parse(done.state.pause.until))
    const callDone = events.find((e) => e.type === 'step.completed' && e.data.step === 'call')!
    expect(Date.parse(done.state.pause.until) - Date.parse(callDone.at)).toBeGreaterThan(990)
    expect(events.find((e) => e.type === 'approval.requested')?.data).toMatchObject({
      approvalId,
      step: 'review',
      title: 'Ship 5 for ada?',
      materialHash: approval.materialHash,
    })
    expect(events.find((e) => e.type === 'approval.decided')?.data).toMatchObject({
      approvalId,
      by: 'bob',
      decision: 'approve',
    })
  })

  it('ends a run at a fail step as failed, with the rendered message', async () => {
    const token = await tenantToken()
    const spec = {
      entry: 'note',
      steps: {
        note: { kind: 'set', values: { reason: "'limit ' & $string(limit)" }, next: 'stop' },
        stop: { kind: 'fail', message: 'refused: {{ reason }}' },
      },
    }
    expectJson(
      await weave.call('POST', '/v1/graphs', { token, body: { name: 'fails', spec } }),
      201,
    )
    const started = expectJson(
      await weave.call('POST', '/v1/runs', {
        token,
        body: { graph: 'fails', input: { limit: 3 } },
      }),
      202,
    )
    const failed = await waitForRun(weave, token, started.id, ['failed'])
    expect(failed).toMatchObject({
      status: 'failed',
      lastStep: 'stop',
      finishedAt: isoTime,
      state: { limit: 3, reason: 'limit 3' },
    })
    expect(failed.error).toMatchObject({ message: expect.stringContaining('refused: limit 3') })

    const events = await runEvents(weave, token, started.id)
    expect(events.map((e) => e.type)).toEqual([
      'run.queued',
      'run.started',
      'step.completed',
      'run.failed',
    ])
    expect(events.at(-1)?.data).toMatchObject({
      message: expect.stringContaining('refused: limit 3'),
    })
  })
})
