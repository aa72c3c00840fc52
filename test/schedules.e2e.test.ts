import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './support/child-processes.js'
import { expectJson } from './support/expect-http.js'
import {
  fencedBlocks,
  jsonValues,
  readmeSection,
  startShell,
  type Shell,
} from './support/readme-shell.js'
import { startWeave, waitUntil, type WeaveProcesses } from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write'
const QUICK = { entry: 'a', steps: { a: { kind: 'set', values: { done: 'true' } } } }

interface Firing {
  scheduledFor: string | null
  outcome: string
  runId: string | null
}

describe('schedules through the API and two worker processes', () => {
  let weave: WeaveProcesses

  beforeAll(async () => {
    weave = await startWeave({ workers: 2 })
  })
  afterAll(async () => {
    await weave?.stop()
  })

  it('fires an every-second schedule for 10 s once per tick across both workers', async () => {
    const token = await weave.token('t-ticks', 'alice', SCOPES)
    const call = (method: string, path: string, body?: unknown) =>
      weave.call(method, path, { token, ...(body === undefined ? {} : { body }) })
    expectJson(await call('POST', '/v1/graphs', { name: 'quick', spec: QUICK }), 201)
    const schedule = expectJson<{ id: string; createdAt: string }>(
      await call('POST', '/v1/schedules', {
        target: { graph: 'quick' },
        everyMs: 1000,
        overlap: 'allow',
      }),
      201,
    )
    const firingsOf = async () =>
      expectJson<{ items: Firing[] }>(
        await call('GET', `/v1/schedules/${schedule.id}/firings?limit=200`),
        200,
      ).items
    await waitUntil(
      async () => {
        weave.assertRunning()
        return (await firingsOf()).length >= 10
      },
      60_000,
      'ten firings',
    )
    // Paused, it fires no more: its firings are all there to read.
    expectJson(await call('POST', `/v1/schedules/${schedule.id}/pause`), 200)
    const firings = await firingsOf()
    expect((await call('DELETE', `/v1/schedules/${schedule.id}`)).status).toBe(204)
    const ticks = firings.map((f) => Date.parse(f.scheduledFor!))
    expect(new Set(ticks).size).toBe(ticks.length)
    expect(new Set(firings.map((f) => f.runId)).size).toBe(firings.length)
    expect(firings.every((f) => f.outcome === 'started')).toBe(true)
    const created = Date.parse(schedule.createdAt)
    for (const tick of ticks) expect((tick - created) % 1000).toBe(0)
    // Each firing's run was executed once, by whichever worker took it.
    const { rows } = await weave.owner.query<{ status: string; n: string }>(
      'select status, count(*) as n from runs where schedule_id = $1 group by status',
      [schedule.id],
    )
    expect(rows.reduce((sum, r) => sum + Number(r.n), 0)).toBe(firings.length)
  })

  it('fires a tick missed while every worker was down once when a worker is back', async () => {
    const token = await weave.token('t-outage', 'alice', SCOPES)
    const call = (method: string, path: string, body?: unknown) =>
      weave.call(method, path, { token, ...(body === undefined ? {} : { body }) })
    expectJson(await call('POST', '/v1/graphs', { name: 'quick', spec: QUICK }), 201)
    // The run of the last tick before the stop may still wait in the queue when a worker is back;
    // `allow` keeps the catch-up's outcome from hanging on which of the two that worker takes
    // first (under `skip` the catch-up would find that run still active).
    const schedule = expectJson<{ id: string }>(
      await call('POST', '/v1/schedules', {
        target: { graph: 'quick' },
        everyMs: 1000,
        overlap: 'allow',
      }),
      201,
    )
    const firingsOf = async () =>
      expectJson<{ items: Firing[] }>(
        await call('GET', `/v1/schedules/${schedule.id}/firings?limit=200`),
        200,
      ).items
    await waitUntil(async () => (await firingsOf()).length >= 2, 60_000, 'two firings')
    // A graceful stop finishes the firing in hand, so every tick before it is recorded.
    for (const worker of [...weave.workers]) await weave.stopWorker(worker)
    const lastBefore = Math.max(...(await firingsOf()).map((f) => Date.parse(f.scheduledFor!)))
    await waitUntil(async () => Date.now() > lastBefore + 3500, 10_000, 'three ticks to pass')
    const back = Date.now()
    await weave.startWorker()
    await waitUntil(
      async () => (await firingsOf()).some((f) => Date.parse(f.scheduledFor!) > back),
      60_000,
      'a tick after the outage',
    )
    expectJson(await call('POST', `/v1/schedules/${schedule.id}/pause`), 200)
    const during = (await firingsOf()).filter((f) => {
      const tick = Date.parse(f.scheduledFor!)
      return tick > lastBefore && tick < back
    })
    expect(during).toHaveLength(1)
    expect(during[0]).toMatchObject({ outcome: 'started' })
  })

  it("runs the README's schedules section as written", async () => {
    const readme = await readFile(`${ROOT}/README.md`, 'utf8')
    const threads = fencedBlocks(readmeSection(readme, '## Threads: an agent addressed by a key'))
    const blocks = fencedBlocks(
      readmeSection(readme, '## Schedules: runs on a cron or an interval'),
    )
    expect(blocks.map((b) => b.lang).join(' ')).toBe('sh sh json')
    const [create, manage, shown] = blocks
    const here = (code: string) => code.replaceAll('http://127.0.0.1:3000', weave.baseUrl)
    const shell: Shell = startShell({
      ...process.env,
      WEAVE_JWT_SECRET: weave.jwtSecret,
      WEAVE_JWT_ISSUER: 'weave-e2e',
    })
    try {
      // The threads section's token, graph and thread come first, as the README says.
      expect((await shell.run(here(threads[0]!.code), 120_000)).status).toBe(0)
      expect((await shell.run(here(threads[1]!.code))).status).toBe(0)
      const created = await shell.run(here(create!.code))
      expect(created.stderr).toBe('')
      expect(jsonValues(created.stdout)).toEqual([
        {
          target: { graph: 'case-file', version: null, thread: null },
          cron: '30 7 * * 1-5',
          timezone: 'Europe/Berlin',
          overlap: 'skip',
          catchUp: 'once',
          paused: false,
        },
      ])
      const managed = await shell.run(here(manage!.code))
      expect(managed.stderr).toBe('')
      expect(jsonValues(managed.stdout)).toEqual(jsonValues(shown!.code))
    } finally {
      await shell.close()
    }
  })
})
