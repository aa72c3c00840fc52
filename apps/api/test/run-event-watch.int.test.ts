import type { PassThrough } from 'node:stream'
import pg from 'pg'
import { appendRunEvent, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunEventStreams } from '../src/services/run-event-stream.js'
import { createRunEventWakeups, type RunEventWakeups } from '../src/services/run-event-wakeups.js'
import { captureLog } from './support.js'
import { createTestDatabase, randomTenant, type TestDatabase } from './support/database.js'
import { seedRun as seedQueuedRun } from './support/fixtures.js'

let db: TestDatabase
let owner: pg.Client
let wakeups: RunEventWakeups
const tenant = randomTenant()
const log = captureLog().log

beforeAll(async () => {
  db = await createTestDatabase('api_run_event_watch')
  owner = new pg.Client({ connectionString: db.url })
  await owner.connect()
  wakeups = createRunEventWakeups({ connectionString: db.url, log })
  await wakeups.listening
})

afterAll(async () => {
  await wakeups?.close()
  await owner?.end()
  await db?.drop()
})

async function seedRun(): Promise<string> {
  const run = await seedQueuedRun(db.database, tenant)
  await withTenant(db.database, tenant, (tx) =>
    appendRunEvent(tx, run.id, 'run.queued', { graph: run.graphName, version: run.graphVersion }),
  )
  return run.id
}

/** The expiries of the run's watches, as the trigger sees them. */
async function watchesOf(runId: string): Promise<Date[]> {
  const result = await owner.query<{ expires_at: Date }>(
    `select expires_at from run_event_watches where run_id = $1`,
    [runId],
  )
  return result.rows.map((r) => r.expires_at)
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Collects what the stream writes, and whether it closed. */
function drain(stream: PassThrough): { text: () => string; isClosed: () => boolean } {
  let text = ''
  let isClosed = false
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
  stream.on('close', () => (isClosed = true))
  return { text: () => text, isClosed: () => isClosed }
}

describe('a stream’s watch of its run', () => {
  it('is registered before the first read, carries live events, and goes when the stream ends', async () => {
    // Polls too rarely to explain a live event: only an announcement delivers it in time.
    const streams = createRunEventStreams({ database: db.database, wakeups, pollMs: 60_000 })
    const runId = await seedRun()
    const stream = await streams.open(tenant, runId, 0, log)
    expect(await watchesOf(runId)).toHaveLength(1)
    const out = drain(stream)
    await until(() => out.text().includes('run.queued'), 'the first event')
    await withTenant(db.database, tenant, (tx) => appendRunEvent(tx, runId, 'run.started', {}))
    await until(() => out.text().includes('run.started'), 'the live event')
    await withTenant(db.database, tenant, (tx) =>
      appendRunEvent(tx, runId, 'run.completed', { steps: 1, lastStep: 'a' }),
    )
    await until(out.isClosed, 'the stream to end after the terminal event')
    await until(async () => (await watchesOf(runId)).length === 0, 'the watch to be removed')
  })

  it('is renewed while the stream lives, also after it lapsed', async () => {
    // A renewal is due every fifth of the time to live, at a poll.
    const streams = createRunEventStreams({
      database: db.database,
      wakeups,
      pollMs: 20,
      watchTtlMs: 1_000,
    })
    const runId = await seedRun()
    const stream = await streams.open(tenant, runId, 0, log)
    const out = drain(stream)
    const [registered] = await watchesOf(runId)
    await until(async () => (await watchesOf(runId))[0]! > registered!, 'the watch to be renewed')
    const lapsed = new Date(Date.now() - 1_000)
    await owner.query(`update run_event_watches set expires_at = $2 where run_id = $1`, [
      runId,
      lapsed,
    ])
    await until(
      async () => (await watchesOf(runId))[0]! > lapsed,
      'the lapsed watch to be registered again',
    )
    stream.destroy()
    await until(out.isClosed, 'the stream to close')
    await until(async () => (await watchesOf(runId)).length === 0, 'the watch to be removed')
  })

  it('is not registered without wake-ups', async () => {
    const streams = createRunEventStreams({ database: db.database, pollMs: 20 })
    const runId = await seedRun()
    const stream = await streams.open(tenant, runId, 0, log)
    const out = drain(stream)
    await until(() => out.text().includes('run.queued'), 'the first event')
    expect(await watchesOf(runId)).toEqual([])
    stream.destroy()
  })
})
