import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startWatched, stopWatched, type Watched } from './support/child-processes.js'
import { fencedBlocks, readmeSection } from './support/readme-shell.js'
import { startWeave, waitUntil, type WeaveProcesses } from './support/weave-processes.js'

// The README's quick start with @weave/client, run as written: its command in bash with the
// tokens the quick start mints, against a Weave with the example's handler and the payments
// stand-in; what it prints must be what the README shows.

const SECTION = '## The quick start with @weave/client'
const PAYMENTS_PORT = 4010

describe('the README quick start with the client, run as written', () => {
  let weave: WeaveProcesses
  let payments: Watched | undefined

  beforeAll(async () => {
    // graph.json names the stand-in's port; another test may hold it for a while, so wait for it.
    await waitUntil(
      async () => {
        payments = await startWatched(
          process.execPath,
          ['--import', 'tsx', 'examples/refund/payments-server.ts'],
          { ready: 'payments stand-in on', what: 'the payments stand-in', timeoutMs: 20_000 },
        ).catch(() => undefined)
        return payments !== undefined
      },
      110_000,
      `port ${PAYMENTS_PORT} for the payments stand-in`,
    )
    weave = await startWeave({
      env: {
        WEAVE_HANDLERS: 'examples/refund/handlers.ts',
        WEAVE_HTTP_ALLOW: `127.0.0.1:${PAYMENTS_PORT}`,
      },
    })
  }, 240_000)
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), stopWatched(payments)])
  })

  it('registers, starts, approves as Bob and waits, printing what the README shows', async () => {
    const readme = await readFile(`${ROOT}README.md`, 'utf8')
    const blocks = fencedBlocks(readmeSection(readme, SECTION))
    expect(blocks.map((b) => b.lang)).toEqual(['sh', 'json'])
    const [command, shown] = blocks
    const script = command!.code.trim().replaceAll('http://127.0.0.1:3000', weave.baseUrl)

    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
      cwd: ROOT,
      env: {
        ...process.env,
        ALICE: await weave.token('acme', 'alice', 'graphs:read graphs:write runs:read runs:write'),
        BOB: await weave.token('acme', 'bob', 'runs:read approvals:read approvals:decide'),
      },
    })
    expect(stderr).toBe('')
    const lines = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
    expect(lines(stdout)).toEqual(lines(shown!.code))
  })
})
