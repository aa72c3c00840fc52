import { spawnSync, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { expectJson, expectProblem } from './support/expect-http.js'
import { faultSuiteOptions } from './support/fault-servers.js'
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres.js'
import { startPrivateRedis, type PrivateRedis } from './support/private-redis.js'
import { startRecordingServer, type RecordingServer } from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  waitForStep,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

// How long the long outage lasts: three minutes, far past every retry delay, job lock, lease and
// reconciler period the processes are given here. WEAVE_FAULT_OUTAGE_MS shortens it while working
// on this file.
const OUTAGE_MS = Number(process.env.WEAVE_FAULT_OUTAGE_MS ?? 180_000)

const STARTER = 'graphs:read graphs:write runs:read runs:write'
const DECIDER = 'runs:read approvals:read approvals:decide'
const TERMINAL_EVENTS = ['run.completed', 'run.failed', 'run.cancelled']

// Production's reconciler runs every 30 s; here it runs often and repairs soon, so whatever a
// fault loses is repaired within a test's timeout.
const RECONCILE_ENV = { WEAVE_RECONCILE_INTERVAL_MS: '1000', WEAVE_RECONCILE_QUIET_MS: '1000' }

/** `http` steps in a row, each POSTing to /<tag>/<step> and saving the answer under its name. */
function chainSpec(server: string, steps: string[]) {
  const spec: Record<string, unknown> = {}
  steps.forEach((name, i) => {
    spec[name] = {
      kind: 'http',
      method: 'POST',
      url: `${server}/{{ tag }}/${name}`,
      body: `{ 'step': '${name}', 'tag': tag }`,
      timeoutMs: 60_000,
      ...(i + 1 < steps.length ? { next: steps[i + 1] } : {}),
    }
  })
  return { entry: steps[0], steps: spec }
}

const privateServers = faultSuiteOptions(['pg_createcluster', 'redis-server'])

describe('faults across processes, against a private Postgres and Redis', privateServers, () => {
  let postgres: PrivatePostgres
  let redis: PrivateRedis
  // An interrupted run (Ctrl-C) skips afterAll; the cluster drops itself on exit, the Redis not.
  let shutdownRedisOnExit: () => void = () => undefined

  beforeAll(async () => {
    // Stopping the shared servers would break every other test file running beside this one.
    postgres = await startPrivatePostgres({ stem: 'weave-faults' })
    redis = await startPrivateRedis()
    const url = redis.url
    shutdownRedisOnExit = () => {
      spawnSync('redis-cli', ['-u', url, 'shutdown', 'nosave'], { stdio: 'ignore' })
    }
    process.once('exit', shutdownRedisOnExit)
  })
  afterAll(async () => {
    try {
      await redis?.stop()
      process.removeListener('exit', shutdownRedisOnExit)
    } finally {
      await postgres?.remove()
    }
  })

  /** A recording server and a Weave on the private servers, both gone when the test ends. */
  async function boot(o: { workers: number; env?: Record<string, string> }) {
    const server = await startRecordingServer()
    onTestFinished(() => server.close())
    const weave = await startWeave({
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      workers: o.workers,
      env: {
        // Every fault makes the processes warn, as they should; only errors are worth showing.
        LOG_LEVEL: process.env.WEAVE_TEST_LOG_LEVEL ?? 'error',
        WEAVE_HTTP_ALLOW: server.host,
        ...RECONCILE_ENV,
        ...o.env,
      },
    })
    onTestFinished(async () => {
      // A test that failed mid-outage left the cluster down; its database is dropped through it.
      // The processes stop even when the cluster cannot start again.
      try {
        await postgres.start()
      } finally {
        await weave.stop()
      }
    })
    return { server, weave }
  }

  async function register(weave: WeaveProcesses, token: string, name: string, spec: unknown) {
    expectJson(await weave.call('POST', '/v1/graphs', { token, body: { name, spec } }), 201)
  }

  async function startRun(weave: WeaveProcesses, token: string, graph: string, tag: string) {
    const res = await weave.call('POST', '/v1/runs', { token, body: { graph, input: { tag } } })
    return expectJson<{ id: string }>(res, 202).id
  }

  /** Every request of one step of one run carried one and the same key. */
  function expectOneKey(server: RecordingServer, path: string) {
    const keys = new Set(server.requestsTo(path).map((r) => r.idempotencyKey))
    expect([...keys], path).toHaveLength(1)
    expect([...keys][0], path).toEqual(expect.any(String))
  }

  /** One terminal event, `run.completed`, and nothing after it; ids without gaps. */
  async function expectCompletedEvents(weave: WeaveProcesses, token: string, runId: string) {
    const events = await runEvents(weave, token, runId)
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1))
    expect(events.filter((e) => TERMINAL_EVENTS.includes(e.type)).map((e) => e.type)).toEqual([
      'run.completed',
    ])
    expect(events.at(-1)?.type).toBe('run.completed')
    return events
  }

  it('survives a Postgres restart mid-load: every process stays up and every run completes', async () => {
    const { server, weave } = await boot({
      workers: 2,
      env: { WEAVE_WORKER_CONCURRENCY: '8' },
    })
    const token = await weave.token('t-restart', 'ops', STARTER)
    const steps = ['s1', 's2', 's3']
    await register(weave, token, 'chain', chainSpec(server.url, steps))
    // Fewer runs than the two workers' concurrency, so every run is mid-call at once.
    const tags = Array.from({ length: 10 }, (_, i) => `r${i}`)
    for (const tag of tags) server.on(`/${tag}/s2`, { hold: true })
    const runIds = []
    for (const tag of tags) runIds.push(await startRun(weave, token, 'chain', tag))
    await waitUntil(
      () => tags.every((tag) => server.requestsTo(`/${tag}/s2`).length === 1),
      60_000,
      () => `every run to be calling s2 (${server.requests.length} requests so far)`,
    )

    // The held calls are answered while the server is down: every run's next checkpoint write
    // meets the restart.
    await postgres.stop()
    for (const tag of tags) {
      server.on(`/${tag}/s2`, {})
      server.release(`/${tag}/s2`)
    }
    await postgres.start()

    for (const id of runIds) await waitForRun(weave, token, id, ['completed'], 90_000)
    weave.assertRunning()
    expect(weave.workers.map((w) => w.exitCode ?? w.signalCode)).toEqual([null, null])
    await waitUntil(
      async () => (await fetch(`${weave.baseUrl}/readyz`)).ok,
      30_000,
      'the API to be ready again',
    )
    for (const [i, tag] of tags.entries()) {
      expect(server.requestsTo(`/${tag}/s1`), tag).toHaveLength(1)
      for (const step of steps) expectOneKey(server, `/${tag}/${step}`)
      await expectCompletedEvents(weave, token, runIds[i]!)
    }
  })

  it('answers 503 problem details with Retry-After, not 500, while Postgres is down', async () => {
    const { weave } = await boot({ workers: 0 })
    const token = await weave.token('t-down', 'ops', STARTER)
    expectJson(await weave.call('GET', '/v1/runs', { token }), 200)

    await postgres.stop()
    const answers = {
      list: await weave.call('GET', '/v1/runs', { token }),
      start: await weave.call('POST', '/v1/runs', {
        token,
        body: { graph: 'any', input: {} },
      }),
    }
    for (const [what, res] of Object.entries(answers)) {
      expectProblem(res, 503)
      expect(res.headers.get('retry-after'), what).toMatch(/^[1-9]\d*$/)
      expect(JSON.stringify(res.body), what).not.toMatch(/ECONNREFUSED|SELECT|stack/i)
    }
    weave.assertRunning()

    await postgres.start()
    await waitUntil(
      async () => (await weave.call('GET', '/v1/runs', { token })).status === 200,
      30_000,
      'the API to answer again once Postgres is back',
    )
  })

  it('lets a step in flight finish on SIGTERM: one Idempotency-Key for the step, and the run completes', async () => {
    const { server, weave } = await boot({ workers: 0 })
    const token = await weave.token('t-sigterm', 'ops', STARTER)
    await register(weave, token, 'chain', chainSpec(server.url, ['s1', 's2', 's3']))
    server.on('/t/s2', { hold: true })
    const worker = await weave.startWorker({
      env: { LOG_LEVEL: 'info', WEAVE_SHUTDOWN_GRACE_MS: '30000' },
      pipeOutput: true,
    })
    const output = collect(worker)
    const runId = await startRun(weave, token, 'chain', 't')
    await waitUntil(() => server.requestsTo('/t/s2').length === 1, 60_000, 'the s2 call')

    const stopped = weave.stopWorker(worker)
    await waitUntil(
      () => output().includes('"msg":"shutting down"'),
      30_000,
      () => `the worker to begin its shutdown (output: ${output()})`,
    )
    // The call is still open: the shutdown is waiting for it rather than cutting it off.
    expect(worker.exitCode).toBeNull()
    server.on('/t/s2', {})
    server.release('/t/s2')
    expect(await stopped).toBe(0)

    await weave.startWorker()
    const done = await waitForRun(weave, token, runId, ['completed'], 60_000)
    expect(done).toMatchObject({ lastStep: 's3', error: null })
    expectOneKey(server, '/t/s2')
    expect(server.requestsTo('/t/s2')[0]!.idempotencyKey).toBe(`${runId}:s2:2`)
    expect(server.requestsTo('/t/s1')).toHaveLength(1)
    expect(server.requestsTo('/t/s3')).toHaveLength(1)
    await expectCompletedEvents(weave, token, runId)
  })

  it('keeps a worker frozen past its job lock from acting after another took its job over', async () => {
    const { server, weave } = await boot({ workers: 0 })
    const token = await weave.token('t-sigstop', 'ops', STARTER)
    const steps = ['s1', 's2', 's3', 's4']
    await register(weave, token, 'chain', chainSpec(server.url, steps))
    server.on('/t/s2', { hold: true })
    // A short lock, so the frozen worker's job is retaken within a few seconds.
    const frozen = await weave.startWorker({
      env: { LOG_LEVEL: 'info', WEAVE_WORKER_LOCK_MS: '2000' },
      pipeOutput: true,
    })
    const output = collect(frozen)
    onTestFinished(() => {
      frozen.kill('SIGCONT')
    })
    const runId = await startRun(weave, token, 'chain', 't')
    await waitUntil(() => server.requestsTo('/t/s2').length === 1, 60_000, 'the s2 call')

    expect(frozen.kill('SIGSTOP')).toBe(true)
    // The frozen worker's call stays held; the one the new worker sends is answered.
    server.on('/t/s2', {})
    await weave.startWorker()
    const done = await waitForRun(weave, token, runId, ['completed'], 60_000)

    const before = output().length
    expect(frozen.kill('SIGCONT')).toBe(true)
    server.release('/t/s2')
    // The woken worker logs the run once its execution of it ends, whatever the outcome.
    await waitUntil(
      () => output().slice(before).includes(`"runId":"${runId}"`),
      30_000,
      () => `the woken worker to end its execution (output: ${output().slice(before)})`,
    )
    weave.assertRunning()

    // No step ran twice: only s2, interrupted by the freeze, was sent again, with the same key.
    expect(server.requestsTo('/t/s2')).toHaveLength(2)
    for (const step of steps) {
      if (step !== 's2') expect(server.requestsTo(`/t/${step}`), step).toHaveLength(1)
      expectOneKey(server, `/t/${step}`)
    }
    const events = await expectCompletedEvents(weave, token, runId)
    expect(events.filter((e) => e.type === 'step.completed').map((e) => e.data.step)).toEqual(steps)

    // No checkpoint went backwards, and the final state is the one the run completed with.
    const history = expectJson(await weave.call('GET', `/v1/runs/${runId}/history`, { token }), 200)
    const seqs: number[] = history.items.map((c: { seq: number }) => c.seq)
    seqs.slice(1).forEach((seq, i) => expect(seq).toBeGreaterThan(seqs[i]!))
    expect(history.items.map((c: { lastStep: string }) => c.lastStep)).toEqual(steps)
    const after = expectJson(await weave.call('GET', `/v1/runs/${runId}`, { token }), 200)
    expect(after).toEqual(done)
    for (const step of steps) {
      expect(after.state[step], step).toMatchObject({ status: 200, body: { path: `/t/${step}` } })
    }
  })

  it(
    'completes every run after a long Postgres outage',
    async () => {
      const { server, weave } = await boot({ workers: 2 })
      const token = await weave.token('t-outage', 'ops', STARTER)
      // A call, a durable timer, a call: runs are caught mid-call and waiting on their timers.
      await register(weave, token, 'slow', {
        entry: 'fetch',
        steps: {
          fetch: {
            kind: 'http',
            method: 'POST',
            url: `${server.url}/{{ tag }}/fetch`,
            next: 'pause',
          },
          pause: { kind: 'wait', duration: 'PT5S', next: 'store' },
          store: { kind: 'http', method: 'POST', url: `${server.url}/{{ tag }}/store` },
        },
      })
      const calling = ['c1', 'c2', 'c3']
      const pausing = ['p1', 'p2', 'p3']
      for (const tag of calling) server.on(`/${tag}/fetch`, { hold: true })
      const runIds = new Map<string, string>()
      for (const tag of [...calling, ...pausing]) {
        runIds.set(tag, await startRun(weave, token, 'slow', tag))
      }
      for (const tag of pausing) await waitForStep(weave, token, runIds.get(tag)!, 'pause')
      await waitUntil(
        () => calling.every((tag) => server.requestsTo(`/${tag}/fetch`).length === 1),
        60_000,
        'the held calls',
      )

      await postgres.stop()
      // The calls end and the timers fire while Postgres is away.
      for (const tag of calling) {
        server.on(`/${tag}/fetch`, {})
        server.release(`/${tag}/fetch`)
      }
      const outageEnds = Date.now() + OUTAGE_MS
      await waitUntil(
        () => {
          weave.assertRunning()
          return Date.now() >= outageEnds
        },
        OUTAGE_MS + 10_000,
        'the outage to last its length',
      )
      await postgres.start()

      for (const id of runIds.values()) await waitForRun(weave, token, id, ['completed'], 120_000)
      weave.assertRunning()
      for (const [tag, id] of runIds) {
        expect(server.requestsTo(`/${tag}/store`), tag).toHaveLength(1)
        expectOneKey(server, `/${tag}/fetch`)
        await expectCompletedEvents(weave, token, id)
      }
    },
    OUTAGE_MS + 150_000,
  )

  it('answers 200 to a decision retried with the same Idempotency-Key and records it once', async () => {
    const { weave } = await boot({ workers: 1 })
    const alice = await weave.token('t-decide', 'alice', STARTER)
    const bob = await weave.token('t-decide', 'bob', DECIDER)
    await register(weave, alice, 'gate', {
      entry: 'review',
      steps: {
        review: { kind: 'approval', title: 'Proceed?', next: 'after' },
        after: { kind: 'set', values: { done: 'true' } },
      },
    })
    const runId = await startRun(weave, alice, 'gate', 'd')
    const waiting = await waitForStep(weave, alice, runId, 'review')
    const approvalId: string = waiting.pendingApprovals[0]
    const decide = () =>
      weave.call('POST', `/v1/approvals/${approvalId}/decision`, {
        token: bob,
        headers: { 'idempotency-key': `decide-${approvalId}` },
        body: { decision: 'approve', comment: 'looks right' },
      })

    const first = expectJson(await decide(), 200)
    expect(first).toMatchObject({ status: 'approved', decisions: [{ by: 'bob' }] })
    // The retry arrives once the decision has taken effect: the approval is settled and the run
    // it resumed has finished, so only the key tells the retry from a second decision.
    await waitForRun(weave, alice, runId, ['completed'])
    const retried = expectJson(await decide(), 200)
    expect(retried).toEqual(first)

    const approval = expectJson(
      await weave.call('GET', `/v1/approvals/${approvalId}`, { token: bob }),
      200,
    )
    expect(approval.decisions).toHaveLength(1)
    const events = await expectCompletedEvents(weave, alice, runId)
    expect(events.filter((e) => e.type === 'approval.decided')).toHaveLength(1)
    expect(events.filter((e) => e.type === 'run.resumed')).toHaveLength(1)
  })
})

/** Gathers a piped child's stdout and stderr (reading them also keeps the pipes from filling). */
function collect(child: ChildProcess): () => string {
  let text = ''
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()))
  return () => text
}
