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
import { startWeave, waitForRun, type WeaveProcesses } from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write'

describe("the README's concurrency keys, through the API and a worker process", () => {
  let weave: WeaveProcesses

  beforeAll(async () => {
    weave = await startWeave({ workers: 1 })
  })
  afterAll(async () => {
    await weave?.stop()
  })

  it('runs the section as written, and a cancel admits the run in line to a worker', async () => {
    const readme = await readFile(`${ROOT}/README.md`, 'utf8')
    const blocks = fencedBlocks(
      readmeSection(readme, '## Concurrency keys: at most N runs of a key at once'),
    )
    expect(blocks.map((b) => b.lang).join(' ')).toBe('sh json')
    const [startThree, shown] = blocks
    // The section uses the thread example's token: its first line.
    const threads = fencedBlocks(readmeSection(readme, '## Threads: an agent addressed by a key'))
    const mintToken = threads[0]!.code.split('\n').find((line) => line.startsWith('ALICE='))!
    const here = (code: string) => code.replaceAll('http://127.0.0.1:3000', weave.baseUrl)
    const shell: Shell = startShell({
      ...process.env,
      WEAVE_JWT_SECRET: weave.jwtSecret,
      WEAVE_JWT_ISSUER: 'weave-e2e',
    })
    try {
      expect((await shell.run(mintToken, 120_000)).stderr).toBe('')
      const started = await shell.run(here(startThree!.code))
      expect(started.stderr).toBe('')
      expect(jsonValues(started.stdout)).toEqual([
        { name: 'payout', version: 1 },
        ...jsonValues(shown!.code),
      ])
    } finally {
      await shell.close()
    }

    const token = await weave.token('acme', 'alice', SCOPES)
    const list = await weave.call('GET', '/v1/runs?concurrencyKey=payouts:acct-7', { token })
    const runs = expectJson<{ items: Array<{ id: string; status: string }> }>(list, 200).items
    const [third, second, first] = runs
    expect(runs).toHaveLength(3)
    // The first two reach their input step and keep their slots while they wait.
    await waitForRun(weave, token, first!.id, ['waiting'], 60_000)
    await waitForRun(weave, token, second!.id, ['waiting'], 60_000)
    const inLine = expectJson(await weave.call('GET', `/v1/runs/${third!.id}`, { token }), 200)
    expect(inLine).toMatchObject({ status: 'queued', linePosition: 1 })

    expectJson(await weave.call('POST', `/v1/runs/${first!.id}/cancel`, { token }), 202)
    const admitted = await waitForRun(weave, token, third!.id, ['waiting'], 60_000)
    expect(admitted).toMatchObject({ linePosition: null, waitingOn: { kind: 'input' } })
    const events = expectJson<{ items: Array<{ type: string }> }>(
      await weave.call('GET', `/v1/runs/${third!.id}/events?format=json`, { token }),
      200,
    ).items
    expect(events.map((e) => e.type).slice(0, 3)).toEqual([
      'run.queued',
      'run.admitted',
      'run.started',
    ])
  })
})
