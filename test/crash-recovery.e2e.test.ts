import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson } from './support/expect-http.js'
import {
  startRecordingServer,
  type RecordedRequest,
  type RecordingServer,
} from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write'
const STEPS = ['s1', 's2', 's3', 's4', 's5', 's6']

/** Six http steps in a row, each POSTing to /step/<name> and saving the answer under its name. */
function chainSpec(server: string) {
  const steps: Record<string, unknown> = {}
  STEPS.forEach((name, i) => {
    steps[name] = {
      kind: 'http',
      method: 'POST',
      url: `${server}/step/${name}`,
      body: `{ 'step': '${name}', 'order': order }`,
      timeoutMs: 5_000,
      ...(i + 1 < STEPS.length ? { next: STEPS[i + 1] } : {}),
    }
  })
  return { entry: 's1', steps }
}

describe('a worker killed mid-step', () => {
  let weave: WeaveProcesses
  let server: RecordingServer

  beforeAll(async () => {
    server = await startRecordingServer()
    // The third step's answer is held, so its worker is killed while the call is in flight
    // however slow the machine is.
    server.on('/step/s3', { hold: true })
    // One worker at a time, so the short lock only speeds up the dead worker's job coming back.
    weave = await startWeave({
      workers: 1,
      env: { WEAVE_HTTP_ALLOW: server.host, WEAVE_WORKER_LOCK_MS: '3000' },
    })
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), server?.close()])
  })

  it('is replaced: the run completes, no finished step is re-run, keys stay the same', async () => {
    const token = await weave.token('t-crash', 'ops', SCOPES)
    expectJson(
      await weave.call('POST', '/v1/graphs', {
        token,
        body: { name: 'chain', spec: chainSpec(server.url) },
      }),
      201,
    )

    const thirdArrived = new Promise<RecordedRequest>((resolve) => {
      server.onRequest((request) => {
        if (server.requests.length === 3) resolve(request)
      })
    })
    const started = expectJson(
      await weave.call('POST', '/v1/runs', {
        token,
        body: { graph: 'chain', input: { order: 7 } },
      }),
      202,
    )
    const runId: string = started.id

    const third = await thirdArrived
    expect(third.path).toBe('/step/s3')
    const [victim] = weave.workers
    await weave.killWorker(victim!)
    expect(victim!.signalCode).toBe('SIGKILL')
    const killedAt = Date.now()
    const before = expectJson(await weave.call('GET', `/v1/runs/${runId}`, { token }), 200)
    expect(before).toMatchObject({ status: 'running' })
    server.on('/step/s3', {})
    await weave.startWorker()

    const done = await waitForRun(weave, token, runId, ['completed'], 45_000)
    server.onRequest(undefined)
    expect(done).toMatchObject({ status: 'completed', lastStep: 's6', error: null })
    for (const name of STEPS) {
      expect(done.state[name]).toMatchObject({
        status: 200,
        body: { ok: true, path: `/step/${name}` },
      })
    }

    // Every step's request was sent; a finished step never again, the interrupted one at most
    // twice, and always with the same idempotency key (the step's seq did not change).
    const byStep = new Map(STEPS.map((name) => [name, server.requestsTo(`/step/${name}`)]))
    for (const name of STEPS) {
      const sent = byStep.get(name)!
      // s3's answer was held when its worker died, so its checkpoint was never written and the
      // new worker must send it again.
      expect(sent).toHaveLength(name === 's3' ? 2 : 1)
      expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1)
      expect(sent[0]!.body).toEqual({ step: name, order: 7 })
    }
    const keys = STEPS.map((name) => byStep.get(name)![0]!.idempotencyKey)
    STEPS.forEach((name, i) => expect(keys[i]).toBe(`${runId}:${name}:${i + 1}`))
    // The retried request came from the new worker, after the kill.
    expect(byStep.get('s3')![1]!.at).toBeGreaterThanOrEqual(killedAt)
    expect(byStep.get('s4')![0]!.at).toBeGreaterThanOrEqual(killedAt)
    expect(server.requests).toHaveLength(STEPS.length + 1)

    // The history is one checkpoint per step, in strictly ascending seq order.
    const history = expectJson(await weave.call('GET', `/v1/runs/${runId}/history`, { token }), 200)
    const seqs: number[] = history.items.map((c: { seq: number }) => c.seq)
    seqs.slice(1).forEach((seq, i) => expect(seq).toBeGreaterThan(seqs[i]!))
    expect(history.items.map((c: { lastStep: string }) => c.lastStep)).toEqual(STEPS)
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6])

    const events = await runEvents(weave, token, runId)
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1))
    const completedSteps = events
      .filter((e) => e.type === 'step.completed')
      .map((e) => e.data.step as string)
    expect(completedSteps).toEqual(STEPS)
    expect(events.filter((e) => e.type === 'run.completed')).toHaveLength(1)
    expect(events.at(-1)?.type).toBe('run.completed')
  })
})
