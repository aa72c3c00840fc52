import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './support/child-processes.js'
import { expectJson, expectProblem } from './support/expect-http.js'
import {
  fencedBlocks,
  jsonValues,
  readmeSection,
  startShell,
  type Shell,
} from './support/readme-shell.js'
import {
  startWeave,
  waitForRun,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write'

// Each run appends the caller's message and an acknowledgement that counts the messages it saw:
// a run that did not start from the previous run's final state would count fewer.
const CHAT = {
  entry: 'ack',
  merge: { messages: 'append' },
  steps: {
    ack: { kind: 'set', values: { messages: "['ack ' & $string($count(messages))]" } },
  },
}

// Counts its visits, then waits an hour: a run that is active for as long as a test needs.
const VISITS = {
  entry: 'visit',
  steps: {
    visit: { kind: 'set', values: { visits: '$exists(visits) ? visits + 1 : 1' }, next: 'pause' },
    pause: { kind: 'wait', duration: 'PT1H' },
  },
}

describe('threads through the API and two worker processes', () => {
  let weave: WeaveProcesses
  let token: string
  const call = (method: string, path: string, body?: unknown) =>
    weave.call(method, path, { token, ...(body === undefined ? {} : { body }) })
  const threadState = async (key: string) =>
    expectJson<{ status: string; state: Record<string, unknown> }>(
      await call('GET', `/v1/threads/${key}`),
      200,
    )
  const waitIdle = (key: string) =>
    waitUntil(
      async () => (await threadState(key)).status === 'idle',
      60_000,
      `thread ${key} to be idle`,
    )

  beforeAll(async () => {
    weave = await startWeave({ workers: 2 })
    token = await weave.token('t-threads', 'alice', SCOPES)
    for (const [name, spec] of [
      ['chat', CHAT],
      ['visits', VISITS],
    ] as const) {
      expectJson(await call('POST', '/v1/graphs', { name, spec }), 201)
    }
  })
  afterAll(async () => {
    await weave?.stop()
  })

  it('carries the state across three runs of a thread', async () => {
    expectJson(await call('PUT', '/v1/threads/chat-1', { graph: 'chat' }), 201)
    for (const text of ['hello', 'where is my parcel?', 'thanks']) {
      const run = expectJson(
        await call('POST', '/v1/threads/chat-1/runs', { input: { messages: [text] } }),
        202,
      )
      await waitForRun(weave, token, run.id, ['completed'])
    }
    expect((await threadState('chat-1')).state).toEqual({
      messages: ['hello', 'ack 1', 'where is my parcel?', 'ack 3', 'thanks', 'ack 5'],
    })
  })

  it('enqueue: 20 concurrent starts run one after another, each from the one before', async () => {
    expectJson(await call('PUT', '/v1/threads/chat-2', { graph: 'chat', strategy: 'enqueue' }), 201)
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('POST', '/v1/threads/chat-2/runs', { input: { messages: [`m${i}`] } }),
      ),
    )
    expect(answers.map((a) => a.status)).toEqual(Array<number>(20).fill(202))
    await waitIdle('chat-2')
    const messages = (await threadState('chat-2')).state.messages as string[]
    expect(messages).toHaveLength(40)
    // Every run saw all the messages of the runs before it.
    expect(messages.filter((_, i) => i % 2 === 1)).toEqual(
      Array.from({ length: 20 }, (_, i) => `ack ${2 * i + 1}`),
    )
    const runs = expectJson(await call('GET', '/v1/threads/chat-2/runs?limit=50'), 200)
    expect(runs.items.map((r: { status: string }) => r.status)).toEqual(
      Array<string>(20).fill('completed'),
    )
  })

  it('interrupt continues from the active run; rollback starts from the state before it', async () => {
    expectJson(await call('PUT', '/v1/threads/visits-1', { graph: 'visits' }), 201)
    const first = expectJson(await call('POST', '/v1/threads/visits-1/runs', {}), 202)
    await waitForRun(weave, token, first.id, ['waiting'])
    const busy = expectProblem(await call('POST', '/v1/threads/visits-1/runs', {}), 409)
    expect(busy).toMatchObject({ activeRun: first.id })

    const second = expectJson(
      await call('POST', '/v1/threads/visits-1/runs', { strategy: 'interrupt' }),
      202,
    )
    expect((await call('GET', `/v1/runs/${first.id}`)).body.status).toBe('cancelled')
    const resumed = await waitForRun(weave, token, second.id, ['waiting'])
    expect(resumed.state).toMatchObject({ visits: 2 })

    const third = expectJson(
      await call('POST', '/v1/threads/visits-1/runs', { strategy: 'rollback' }),
      202,
    )
    expect((await call('GET', `/v1/runs/${second.id}`)).body.status).toBe('cancelled')
    // The second run's visit is rolled back: the third starts from the first run's state.
    const rolledBack = await waitForRun(weave, token, third.id, ['waiting'])
    expect(rolledBack.state).toMatchObject({ visits: 2 })
    expect((await threadState('visits-1')).status).toBe('waiting')
  })

  it("runs the README's threads section as written", async () => {
    const readme = await readFile(`${ROOT}/README.md`, 'utf8')
    const blocks = fencedBlocks(readmeSection(readme, '## Threads: an agent addressed by a key'))
    expect(blocks.map((b) => b.lang).join(' ')).toBe('sh sh sh json')
    const [register, start, read, shown] = blocks
    const here = (code: string) => code.replaceAll('http://127.0.0.1:3000', weave.baseUrl)
    const shell: Shell = startShell({
      ...process.env,
      WEAVE_JWT_SECRET: weave.jwtSecret,
      WEAVE_JWT_ISSUER: 'weave-e2e',
    })
    try {
      const registered = await shell.run(here(register!.code), 120_000)
      expect(registered.stderr).toBe('')
      expect(jsonValues(registered.stdout)).toEqual([{ name: 'case-file', version: 1 }])
      const started = await shell.run(here(start!.code))
      expect(jsonValues(started.stdout)).toEqual([
        { key: 'customer-42', status: 'idle', strategy: 'enqueue' },
        { thread: 'customer-42', status: 'queued' },
        { thread: 'customer-42', status: 'queued' },
      ])
      const acme = await weave.token('acme', 'alice', SCOPES)
      await waitUntil(
        async () =>
          (await weave.call('GET', '/v1/threads/customer-42', { token: acme })).body.status ===
            'idle' &&
          (
            await weave.call('GET', '/v1/threads/customer-42/runs', { token: acme })
          ).body.items.every((r: { status: string }) => r.status === 'completed'),
        60_000,
        'the README thread to be idle',
      )
      const result = await shell.run(here(read!.code))
      expect(jsonValues(result.stdout)).toEqual(jsonValues(shown!.code))
    } finally {
      await shell.close()
    }
  })
})
