import { randomBytes } from 'node:crypto'
import { createRun, openApproval, registerGraphVersion, withTenant } from '@weave/db'
import { createJobQueues, redisConnection, type JobQueues } from '@weave/queue'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePrometheusText, type PromFamily } from '../../../test/support/prometheus-text.js'
import { TEST_REDIS_URL } from '../../../test/support/service-urls.js'
import { buildApp, type App } from '../src/app.js'
import { registerControlPlaneMetrics } from '../src/http/control-plane-metrics.js'
import { captureLog, testConfig } from './support.js'
import { createTestDatabase, randomTenant, type TestDatabase } from './support/database.js'
import { obliterateQueues } from '../../../test/support/queue-cleanup.js'

let db: TestDatabase
let queues: JobQueues
let app: App
const registry = new Registry()

beforeAll(async () => {
  db = await createTestDatabase('api_metrics')
  queues = createJobQueues({
    connection: redisConnection(TEST_REDIS_URL),
    prefix: `weave-metrics-${randomBytes(6).toString('hex')}`,
  })
  const broken = { name: 'broken', getJobCounts: () => Promise.reject(new Error('redis away')) }
  registerControlPlaneMetrics(registry, {
    database: db.database,
    queues: [queues.runs, queues.timers, broken],
    openStreams: () => 3,
    timeoutMs: 500,
  })
  app = buildApp({
    config: testConfig({ LOG_LEVEL: 'warn' }),
    log: captureLog().log,
    metrics: registry,
  })
  await app.ready()
})

afterAll(async () => {
  await app?.close()
  if (queues) await obliterateQueues(queues)
  await queues?.close()
  await db?.drop()
})

async function scrape(): Promise<Map<string, PromFamily>> {
  const response = await app.inject({ method: 'GET', url: '/metrics' })
  expect(response.statusCode).toBe(200)
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  return parsePrometheusText(response.body)
}

function value(family: PromFamily | undefined, labels: Record<string, string> = {}): number {
  const sample = family?.samples.find((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
  if (!sample) throw new Error(`no sample ${JSON.stringify(labels)} in ${family?.name}`)
  return sample.value
}

describe('GET /metrics', () => {
  it('parses as Prometheus text with the control-plane families', async () => {
    const tenant = randomTenant()
    await withTenant(db.database, tenant, async (tx) => {
      const spec = { entry: 'a', steps: { a: { kind: 'set', values: {} } } }
      const v = await registerGraphVersion(tx, { name: 'g', spec, createdBy: 'author' })
      for (let i = 0; i < 2; i++) {
        const { run } = await createRun(tx, {
          graphName: 'g',
          graphVersion: v.version,
          input: {},
          createdBy: 'a',
        })
        await openApproval(tx, { runId: run.id, step: 'review', seq: 1, title: `t${i}` })
      }
    })
    await queues.enqueue(
      'waitElapsed',
      { runId: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11', tenant, step: 'pause', seq: 1 },
      { delayMs: 3_600_000 },
    )
    await app.inject({ method: 'GET', url: '/healthz' })

    const families = await scrape()
    expect(families.get('weave_runs')?.type).toBe('gauge')
    expect(value(families.get('weave_runs'), { status: 'queued' })).toBe(2)
    expect(value(families.get('weave_runs'), { status: 'completed' })).toBe(0)
    expect(value(families.get('weave_approvals_pending'))).toBe(2)
    expect(value(families.get('weave_approvals_pending_oldest_age_seconds'))).toBeGreaterThan(0)
    const jobs = families.get('weave_queue_jobs')
    expect(value(jobs, { queue: 'weave-timers', state: 'delayed' })).toBe(1)
    expect(value(jobs, { queue: 'weave-runs', state: 'waiting' })).toBe(0)
    expect(value(families.get('weave_sse_streams'))).toBe(3)
    expect(families.get('weave_http_request_duration_seconds')?.type).toBe('histogram')
    // A failing source is left out and counted (the count shows from the next scrape on).
    expect(jobs?.samples.some((s) => s.labels.queue === 'broken')).toBe(false)
    const errors = (await scrape()).get('weave_metrics_collect_errors_total')
    expect(value(errors, { source: 'redis' })).toBeGreaterThanOrEqual(1)
  })

  it('reads Postgres and Redis at most once per refresh interval however often it is scraped', async () => {
    let now = Date.now()
    let queueReads = 0
    const counted = {
      name: 'counted',
      getJobCounts: async () => {
        queueReads += 1
        return { waiting: queueReads }
      },
    }
    const own = new Registry()
    registerControlPlaneMetrics(own, {
      database: db.database,
      queues: [counted],
      refreshMs: 15_000,
      now: () => now,
    })
    const scraper = buildApp({
      config: testConfig({ LOG_LEVEL: 'warn' }),
      log: captureLog().log,
      metrics: own,
    })
    try {
      const scrapeOwn = async () => {
        const response = await scraper.inject({ method: 'GET', url: '/metrics' })
        expect(response.statusCode).toBe(200)
        return parsePrometheusText(response.body)
      }
      // Twenty at once, then twenty one after another, all within one interval.
      const families = await Promise.all(Array.from({ length: 20 }, scrapeOwn))
      for (let i = 0; i < 20; i++) families.push(await scrapeOwn())
      expect(queueReads).toBe(1)
      const last = families.at(-1)!
      expect(value(last.get('weave_metrics_refreshes_total'))).toBe(1)
      expect(value(last.get('weave_queue_jobs'), { queue: 'counted', state: 'waiting' })).toBe(1)
      expect(last.get('weave_runs')?.samples.length).toBeGreaterThan(0)

      now += 14_999
      await scrapeOwn()
      expect(queueReads).toBe(1)
      now += 1
      const next = await scrapeOwn()
      expect(queueReads).toBe(2)
      expect(value(next.get('weave_queue_jobs'), { queue: 'counted', state: 'waiting' })).toBe(2)
      expect(value((await scrapeOwn()).get('weave_metrics_refreshes_total'))).toBe(2)
    } finally {
      await scraper.close()
    }
  })

  it('is checked by a strict parser that refuses malformed exposition text', () => {
    expect(() => parsePrometheusText('weave_x 1\n')).toThrow(/without a preceding TYPE/)
    expect(() => parsePrometheusText('# TYPE weave_x gauge\nweave_x{a="b} 1\n')).toThrow()
    expect(() => parsePrometheusText('# TYPE weave_x gauge\nweave_x one\n')).toThrow(/value/)
    expect(() =>
      parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n'),
    ).toThrow(/\+Inf/)
  })
})
