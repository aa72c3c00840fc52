import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  anyFreePort,
  isFree,
  isRunning,
  ROOT,
  startWatched,
  stopWatched,
  type Watched,
} from './support/child-processes.js'
import {
  fencedBlocks,
  jsonValues,
  readmeSection,
  startShell,
  type Shell,
  type ShellResult,
} from './support/readme-shell.js'
import { waitUntil } from './support/wait-until.js'
import { isolatedTarget, type IsolatedTarget } from './support/weave-processes.js'

// The README's quick start, run as written: its shell blocks are read from README.md and run
// with bash. The first terminal's `npm start` line and the second terminal's stand-in run in the
// background with the README's command lines; the third terminal's blocks run one after another
// in one bash session. Two lines are not run: the first block's `npm ci` (the test runs in the
// checkout `npm ci` installed) and the Docker block (no Docker engine here).
//
// What the test adds is what the reader's surroundings give: a database, queue prefix and JWT
// secret of its own (which `npm start` and `weave token` both read), and the reader's patience
// (before approving, it waits until the run waits on the approval). When port 3000 is taken the
// commands are pointed at a free port. graph.json names the stand-in's port 4010, so the test
// waits for that port when another test holds it.

const SECTION = '## Quick start'
const WEAVE_PORT = 3000
/** The languages of the section's fenced blocks, in order. */
const SHAPE = 'sh sh sh sh sh sh sh sh'

/** A block that ran cleanly: its last command succeeded and nothing went to stderr. */
function expectClean(result: ShellResult): ShellResult {
  expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' })
  return result
}

describe('the README quick start, run as written', () => {
  let blocks: string[]
  let target: IsolatedTarget
  let weave: Watched | undefined
  let payments: Watched | undefined
  let shell: Shell
  let baseUrl: string
  let asWritten: (code: string) => string

  beforeAll(async () => {
    const readme = await readFile(`${ROOT}README.md`, 'utf8')
    const fenced = fencedBlocks(readmeSection(readme, SECTION))
    const shape = fenced.map((b) => b.lang).join(' ')
    if (shape !== SHAPE) {
      throw new Error(`the section's blocks are now "${shape}", not "${SHAPE}": update this test`)
    }
    blocks = fenced.map((b) => b.code.trim())
    const weavePort = (await isFree(WEAVE_PORT)) ? WEAVE_PORT : await anyFreePort()
    asWritten = (code) =>
      weavePort === WEAVE_PORT
        ? code
        : code.replaceAll(`127.0.0.1:${WEAVE_PORT}`, `127.0.0.1:${weavePort}`)
    baseUrl = `http://127.0.0.1:${weavePort}`
    target = isolatedTarget()
    const env = {
      ...process.env,
      WEAVE_MIGRATE_DATABASE_URL: target.databaseUrl,
      WEAVE_DATABASE_URL: target.runtimeUrl,
      REDIS_URL: target.redisUrl,
      WEAVE_QUEUE_PREFIX: target.queuePrefix,
      WEAVE_JWT_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: process.env.WEAVE_TEST_LOG_LEVEL ?? 'warn',
      ...(weavePort === WEAVE_PORT ? {} : { PORT: String(weavePort) }),
    }
    const [install, ...start] = blocks[0]!.split('\n')
    expect(install).toBe('npm ci')
    // The payments stand-in's port is fixed; another test may hold it for a while.
    await waitUntil(
      async () => {
        payments = await startWatched('bash', ['-c', blocks[1]!], {
          ready: 'payments stand-in on',
          what: 'the payments stand-in (the second terminal)',
          env,
        }).catch(() => undefined)
        return payments !== undefined
      },
      110_000,
      'port 4010 for the payments stand-in',
    )
    weave = await startWatched('bash', ['-c', asWritten(start.join('\n'))], {
      ready: async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok === true,
      what: 'npm start (the first terminal)',
      env,
      timeoutMs: 90_000,
    })
    shell = startShell(env)
  }, 300_000)
  afterAll(async () => {
    await Promise.allSettled([shell?.close(), stopWatched(weave), stopWatched(payments)])
    await target?.remove()
  })

  /** The values of the shell's variables `names`. */
  async function variables(...names: string[]): Promise<string[]> {
    const printed = await shell.run(`printf '%s\\n' ${names.map((n) => `"$${n}"`).join(' ')}`)
    return printed.stdout.split('\n').slice(0, names.length)
  }

  /** Waits, as the reader does, until the run is in the state the README describes next. */
  async function waitForRun(runId: string, token: string, status: string) {
    let run: { status?: string } | undefined
    await waitUntil(
      async () => {
        if (!isRunning(weave!.child)) throw new Error(`npm start exited: ${weave!.output()}`)
        const res = await fetch(`${baseUrl}/v1/runs/${runId}`, {
          headers: { authorization: `Bearer ${token}` },
        })
        run = (await res.json()) as { status?: string }
        return run.status === status
      },
      30_000,
      () => `the run to be ${status} (last: ${JSON.stringify(run)})`,
    )
  }

  it('registers the refund graph, stops for approval, and completes once Bob approves', async () => {
    const [, , tokens, register, start, approve, watch] = blocks.map((b) => asWritten(b))
    expectClean(await shell.run(tokens!))
    expect(jsonValues(expectClean(await shell.run(register!)).stdout)).toEqual([
      {
        name: 'refund',
        version: 1,
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        createdAt: expect.any(String),
      },
    ])

    // The run is shown as soon as it is started: queued, running, or already at the approval.
    const [started] = jsonValues(expectClean(await shell.run(start!)).stdout)
    expect(['queued', 'running', 'waiting']).toContain((started as { status: string }).status)
    const [alice, runId] = await variables('ALICE', 'RUN')
    expect(runId).toMatch(/^[0-9a-f-]{36}$/)
    await waitForRun(runId!, alice!, 'waiting')

    expect(jsonValues(expectClean(await shell.run(approve!)).stdout)).toEqual([
      {
        status: 'approved',
        decisions: [expect.objectContaining({ by: 'bob', decision: 'approve' })],
      },
    ])
    await waitForRun(runId!, alice!, 'completed')

    const [run, ...types] = jsonValues(expectClean(await shell.run(watch!)).stdout)
    expect(run).toMatchObject({
      status: 'completed',
      state: {
        amount: 250,
        customer: 'ada',
        review: { status: 'approved' },
        refundResult: { status: 201, body: { request: { customer: 'ada', amount: 250 } } },
        notified: { customer: 'ada', message: 'Your refund is on its way.' },
      },
    })
    expect(types.slice(0, 2)).toEqual(['run.queued', 'run.started'])
    expect(types).toContain('approval.decided')
    expect(types.at(-1)).toBe('run.completed')
    // The stand-in's log line the README points at: the refund went out once, keyed by the step.
    expect(payments!.output().match(/idempotency key [^)]+\)/g)).toEqual([
      expect.stringMatching(new RegExp(`idempotency key ${runId}:refund:\\d+\\)`)),
    ])
  })
})
