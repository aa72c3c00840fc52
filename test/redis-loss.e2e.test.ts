import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson } from './support/expect-http.js'
import { faultSuiteOptions } from './support/fault-servers.js'
import { freePort, startPrivateRedis, type PrivateRedis } from './support/private-redis.js'
import { parsePrometheusText, type PromFamily } from './support/prometheus-text.js'
import { startRecordingServer, type RecordingServer } from './support/recording-server.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  waitForStep,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write'

/** A slow call, a durable timer, another call: each run is in Redis at every moment. */
function slowSpec(server: string) {
  return {
    entry: 'fetch',
    steps: {
      fetch: { kind: 'http', method: 'POST', url: `${server}/fetch/{{ tag }}`, next: 'pause' },
      pause: { kind: 'wait', duration: 'PT4S', next: 'store' },
      store: { kind: 'http', method: 'POST', url: `${server}/store/{{ tag }}` },
    },
  }
}

/** A person's answer, then a call: the answer must survive Redis losing its resume job. */
function askSpec(server: string) {
  return {
    entry: 'ask',
    steps: {
      ask: { kind: 'input', saveAs: 'answer', next: 'store' },
      store: { kind: 'http', method: 'POST', url: `${server}/store/{{ tag }}` },
    },
  }
}

function sampleValue(family: PromFamily | undefined, labels: Record<string, string>): number {
  const sample = family?.samples.find((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
  return sample?.value ?? 0
}

const privateServers = faultSuiteOptions(['redis-server'])

describe('Redis flushed in the middle of several runs', privateServers, () => {
  let redis: PrivateRedis
  let server: RecordingServer
  let weave: WeaveProcesses
  let metricsPort: number

  beforeAll(async () => {
    // FLUSHALL on the shared Redis would wipe the queues of every other test file.
    redis = await startPrivateRedis()
    server = await startRecordingServer()
    server.setDefault({ delayMs: 300 })
    // Calls outlasting the quiet period by more than a reconciler interval: without the lease
    // their executors renew, a pass would hand these runs to a second executor.
    for (const tag of ['r1', 'r2']) server.on(`/fetch/${tag}`, { delayMs: 3_000 })
    metricsPort = await freePort()
    weave = await startWeave({
      env: {
        REDIS_URL: redis.url,
        WEAVE_HTTP_ALLOW: server.host,
        WEAVE_WORKER_CONCURRENCY: '2',
        WEAVE_RECONCILE_INTERVAL_MS: '1000',
        WEAVE_RECONCILE_QUIET_MS: '1000',
        WEAVE_METRICS_PORT: String(metricsPort),
        WEAVE_METRICS_HOST: '127.0.0.1',
      },
    })
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), server?.close()])
    await redis?.stop()
  })

  it('finishes every run after the reconciler repairs what was lost, each call made once', async () => {
    const token = await weave.token('t-flush', 'ops', SCOPES)
    expectJson(
      await weave.call('POST', '/v1/graphs', {
        token,
        body: { name: 'slow', spec: slowSpec(server.url) },
      }),
      201,
    )
    expectJson(
      await weave.call('POST', '/v1/graphs', {
        token,
        body: { name: 'ask', spec: askSpec(server.url) },
      }),
      201,
    )
    const start = async (tag: string, graph = 'slow'): Promise<string> =>
      expectJson(
        await weave.call('POST', '/v1/runs', { token, body: { graph, input: { tag } } }),
        202,
      ).id

    // Two runs wait on their timers (delayed jobs), two are mid-call (active jobs), one is
    // queued behind them (a waiting job): every kind of job is in Redis when it is flushed.
    const waiting = [await start('w1'), await start('w2')]
    for (const id of waiting) await waitForStep(weave, token, id, 'pause')
    const asking = await start('i1', 'ask')
    await waitForStep(weave, token, asking, 'ask')
    const running = [await start('r1'), await start('r2')]
    await waitUntil(
      () => server.requestsTo('/fetch/r1').length + server.requestsTo('/fetch/r2').length === 2,
      30_000,
      'both running runs to be mid-call',
    )
    const queued = await start('q1')
    // The answer is accepted while both worker slots are busy: its resume job waits in Redis.
    expectJson(
      await weave.call('POST', `/v1/runs/${asking}/resume`, {
        token,
        body: { input: { colour: 'teal' } },
      }),
      202,
    )
    const states = await Promise.all(
      [...waiting, ...running, queued, asking].map(
        async (id) => (await weave.call('GET', `/v1/runs/${id}`, { token })).body.status,
      ),
    )
    expect(states).toEqual(['waiting', 'waiting', 'running', 'running', 'queued', 'waiting'])
    expect(await redis.client.dbsize()).toBeGreaterThan(0)

    expect(await redis.client.flushall()).toBe('OK')

    const all = [...waiting, ...running, queued, asking]
    for (const id of all) await waitForRun(weave, token, id, ['completed'], 60_000)

    // No run was handed to a second executor: each call went out once.
    for (const tag of ['w1', 'w2', 'r1', 'r2', 'q1']) {
      expect(server.requestsTo(`/fetch/${tag}`), tag).toHaveLength(1)
      expect(server.requestsTo(`/store/${tag}`), tag).toHaveLength(1)
    }
    // The answer came back from Postgres, not from the lost job.
    expect(server.requestsTo('/store/i1')).toHaveLength(1)
    const answered = await weave.call('GET', `/v1/runs/${asking}`, { token })
    expect(answered.body.state).toMatchObject({ tag: 'i1', answer: { colour: 'teal' } })
    for (const id of all) {
      const events = await runEvents(weave, token, id)
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1))
      expect(events.filter((e) => e.type === 'run.completed')).toHaveLength(1)
      expect(events.at(-1)?.type).toBe('run.completed')
    }

    // The API's /metrics counts the runs; the worker's own /metrics shows the repairs.
    const api = await fetch(`${weave.baseUrl}/metrics`)
    expect(api.status).toBe(200)
    const apiFamilies = parsePrometheusText(await api.text())
    expect(sampleValue(apiFamilies.get('weave_runs'), { status: 'completed' })).toBe(6)
    expect(apiFamilies.has('weave_queue_jobs')).toBe(true)
    const worker = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    const workerFamilies = parsePrometheusText(await worker.text())
    const repairs = workerFamilies.get('weave_reconciler_repairs_total')
    expect(sampleValue(repairs, { kind: 'requeued' })).toBeGreaterThanOrEqual(1)
    expect(sampleValue(repairs, { kind: 'timersFired' })).toBeGreaterThanOrEqual(2)
    expect(sampleValue(repairs, { kind: 'resumeRequests' })).toBe(1)
    expect(sampleValue(repairs, { kind: 'recovered' })).toBe(0)
    expect(workerFamilies.get('weave_step_duration_seconds')?.type).toBe('histogram')
  })
})
