import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../apps/cli/src/main.js'
import { expectJson } from './support/expect-http.js'
import { startWeave, waitForRun, type WeaveProcesses } from './support/weave-processes.js'

// `weave threads` and `weave schedules` against a running Weave: tables for people, --json for
// scripts, and a problem Weave answers as one line with exit status 1.

const SCOPES = 'graphs:write runs:read runs:write'
const QUICK = { entry: 'a', steps: { a: { kind: 'set', values: { done: 'true' } } } }

describe('weave threads and weave schedules', () => {
  let weave: WeaveProcesses
  let token: string

  /** Runs `weave <args>` in this process with --url and --token; returns what it printed. */
  async function weaveCli(...args: string[]) {
    let stdout = ''
    let stderr = ''
    const status = await main([...args, '--url', weave.baseUrl, '--token', token], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: {},
    })
    return { status, stdout, stderr }
  }
  const call = (method: string, path: string, body?: unknown) =>
    weave.call(method, path, { token, ...(body === undefined ? {} : { body }) })

  beforeAll(async () => {
    weave = await startWeave()
    token = await weave.token('t-cli-threads', 'ops', SCOPES)
    expectJson(await call('POST', '/v1/graphs', { name: 'quick', spec: QUICK }), 201)
  })
  afterAll(async () => {
    await weave?.stop()
  })

  it('lists threads and gets one with its state', async () => {
    expectJson(
      await call('PUT', '/v1/threads/customer-7', {
        graph: 'quick',
        metadata: { customer: '7' },
        strategy: 'enqueue',
      }),
      201,
    )
    expectJson(await call('PUT', '/v1/threads/customer-8', { graph: 'quick' }), 201)
    const run = expectJson(await call('POST', '/v1/threads/customer-7/runs', { input: {} }), 202)
    await waitForRun(weave, token, run.id, ['completed'])

    const listed = await weaveCli('threads', 'list', '--metadata', '{"customer":"7"}')
    expect(listed).toMatchObject({ status: 0, stderr: '' })
    const [header, ...rows] = listed.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^KEY\s+GRAPH\s+STATUS\s+STRATEGY\s+ACTIVE RUN\s+UPDATED$/)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatch(/^customer-7\s+quick\s+idle\s+enqueue\s+-\s+\S+Z$/)

    const json = JSON.parse((await weaveCli('threads', 'list', '--json')).stdout)
    expect(json.items.map((t: { key: string }) => t.key)).toEqual(['customer-8', 'customer-7'])

    const got = await weaveCli('threads', 'get', 'customer-7')
    expect(got.status).toBe(0)
    expect(got.stdout).toMatch(/^key:\s+customer-7$/m)
    expect(got.stdout).toMatch(/^state:\s+\{"done":true\}$/m)
    expect(
      JSON.parse((await weaveCli('threads', 'get', 'customer-7', '--json')).stdout),
    ).toMatchObject({ key: 'customer-7', state: { done: true } })

    const missing = await weaveCli('threads', 'get', 'nobody')
    expect(missing.status).toBe(1)
    expect(missing.stderr).toMatch(/^weave threads get: 404 /)
    expect((await weaveCli('threads', 'list', '--status', 'sleeping')).status).toBe(2)
  })

  it('lists, gets, pauses, resumes and triggers a schedule', async () => {
    const schedule = expectJson(
      await call('POST', '/v1/schedules', {
        target: { graph: 'quick' },
        cron: '0 6 * * 1',
        timezone: 'Europe/Berlin',
        input: { account: 'acc_7' },
      }),
      201,
    )

    const listed = await weaveCli('schedules', 'list')
    expect(listed).toMatchObject({ status: 0, stderr: '' })
    expect(listed.stdout).toContain(`${schedule.id}  quick   0 6 * * 1 (Europe/Berlin)  no`)
    const got = await weaveCli('schedules', 'get', schedule.id)
    expect(got.stdout).toMatch(/^input:\s+\{"account":"acc_7"\}$/m)

    const paused = await weaveCli('schedules', 'pause', schedule.id)
    expect(paused).toMatchObject({ status: 0, stdout: `schedule ${schedule.id} paused\n` })
    expect(
      JSON.parse((await weaveCli('schedules', 'get', schedule.id, '--json')).stdout),
    ).toMatchObject({ paused: true })
    const resumed = await weaveCli('schedules', 'resume', schedule.id)
    expect(resumed.stdout).toBe(`schedule ${schedule.id} active\n`)

    const fired = JSON.parse((await weaveCli('schedules', 'trigger', schedule.id, '--json')).stdout)
    expect(fired).toMatchObject({ outcome: 'started', manual: true })
    await waitForRun(weave, token, fired.runId, ['completed'])
    // Under overlap `skip` a trigger while a run is active is skipped; none is active now.
    const again = await weaveCli('schedules', 'trigger', schedule.id)
    expect(again.stdout).toMatch(/^firing \S+ started run \S+\n$/)

    const unknown = await weaveCli('schedules', 'pause', '00000000-0000-4000-8000-000000000000')
    expect(unknown.status).toBe(1)
    expect(unknown.stderr).toMatch(/^weave schedules pause: 404 /)
    expect((await weaveCli('schedules', 'explode', schedule.id)).status).toBe(2)
  })
}, 120_000)
