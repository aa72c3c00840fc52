import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson } from './support/expect-http.js'
import { openSse, type SseMessage, type SseStream } from './support/sse-client.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write approvals:read approvals:decide'

/** Prepare, wait for a person, then finish. */
const GATED = {
  entry: 'prepare',
  steps: {
    prepare: { kind: 'set', values: { total: 'amount * 2' }, next: 'review' },
    review: { kind: 'approval', title: 'Charge {{ total }}?', next: 'finish' },
    finish: { kind: 'set', values: { done: 'true' } },
  },
}

// The approval step completes once when it yields and once more when it resumes.
const BEFORE_DECISION = [
  'run.queued',
  'run.started',
  'step.completed',
  'step.completed',
  'approval.requested',
  'run.waiting',
]
const AFTER_DECISION = [
  'approval.decided',
  'run.resumed',
  'step.completed',
  'step.completed',
  'run.completed',
]

describe('run events as Server-Sent Events, from a worker in another process', () => {
  let weave: WeaveProcesses
  let token: string
  let runId: string
  let streamed: SseMessage[]

  beforeAll(async () => {
    // Streams poll only every 5 minutes here: an event arriving within the test's wait can only
    // have come through the live wake-up.
    weave = await startWeave({
      env: { WEAVE_SSE_HEARTBEAT_MS: '300', WEAVE_SSE_POLL_MS: '300000' },
    })
    token = await weave.token('t-sse', 'alice', SCOPES)
    expectJson(
      await weave.call('POST', '/v1/graphs', { token, body: { name: 'gated', spec: GATED } }),
      201,
    )
  })
  afterAll(async () => {
    await weave?.stop()
  })

  const open = (headers: Record<string, string> = {}): Promise<SseStream> =>
    openSse(`${weave.baseUrl}/v1/runs/${runId}/events`, {
      authorization: `Bearer ${token}`,
      ...headers,
    })

  /** Reads messages until one of type `type` arrives; returns all read. */
  async function readThrough(sse: SseStream, type: string): Promise<SseMessage[]> {
    const read: SseMessage[] = []
    for (;;) {
      weave.assertRunning()
      const message = await sse.next(30_000)
      if (!message) throw new Error(`stream ended before ${type}: ${JSON.stringify(read)}`)
      read.push(message)
      if (message.event === type) return read
    }
  }

  it('streams every event in order, live across an approval, and ends after run.completed', async () => {
    const started = expectJson(
      await weave.call('POST', '/v1/runs', {
        token,
        body: { graph: 'gated', input: { amount: 5 } },
      }),
      202,
    )
    runId = started.id
    const sse = await open()
    expect(sse.status).toBe(200)
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/)

    const before = await readThrough(sse, 'run.waiting')
    expect(before.map((m) => m.event)).toEqual(BEFORE_DECISION)
    const requested = JSON.parse(before[4]!.data)
    expect(requested).toMatchObject({ type: 'approval.requested', data: { step: 'review' } })
    // While the run waits, only heartbeats arrive.
    await sse.comment((text) => text === 'ping')

    const decision = await weave.call(
      'POST',
      `/v1/approvals/${requested.data.approvalId}/decision`,
      { token: await weave.token('t-sse', 'bob', SCOPES), body: { decision: 'approve' } },
    )
    expect(decision.status).toBe(200)
    const after = await sse.rest(30_000)
    expect(after.map((m) => m.event)).toEqual(AFTER_DECISION)

    streamed = [...before, ...after]
    const ids = streamed.map((m) => Number(m.id))
    expect(ids).toEqual(ids.map((_, i) => i + 1))
    streamed.forEach((m) =>
      expect(JSON.parse(m.data)).toMatchObject({ id: Number(m.id), type: m.event }),
    )
    const listed = await runEvents(weave, token, runId)
    expect(listed.map((e) => [String(e.id), e.type])).toEqual(streamed.map((m) => [m.id, m.event]))
    expect(listed.map((e) => e.data)).toEqual(streamed.map((m) => JSON.parse(m.data).data))
  })

  it('replays only the events after Last-Event-ID and ends after the terminal one', async () => {
    await waitForRun(weave, token, runId, ['completed'])
    const replayed = await (await open({ 'last-event-id': '6' })).rest()
    expect(replayed.map((m) => m.id)).toEqual(['7', '8', '9', '10', '11'])
    expect(replayed).toEqual(streamed.slice(6).map((m) => ({ ...m, at: expect.any(Number) })))
    expect(await (await open({ 'last-event-id': '11' })).rest()).toEqual([])
  })

  it("answers 404 for another tenant's run, as for any missing run", async () => {
    const stranger = await weave.token('t-other', 'eve', SCOPES)
    const res = await fetch(`${weave.baseUrl}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${stranger}`, accept: 'text/event-stream' },
    })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })
})
