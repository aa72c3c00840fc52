import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { mintDevToken } from '@weave/api'
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
  type FencedBlock,
  type Shell,
  type ShellResult,
} from './support/readme-shell.js'
import { waitUntil } from './support/wait-until.js'
import { isolatedTarget, type IsolatedTarget } from './support/weave-processes.js'

// The README's "An agent whose refunds a person approves", run as written: its shell blocks are
// read from README.md and run with bash. The first two, long-running (`npm start` with the
// example's environment, `npm run example:model`), are started in the background with the
// README's command lines; the others run one after another in one bash session, the reader's
// third terminal. The JSON blocks the README shows are what those commands must print.
//
// What the test adds is only what the reader's surroundings give: an environment that keeps the
// walk-through off the machine's own Weave (a database, queue prefix and JWT secret of its own,
// which `npm start` and `weave token` both read), and the reader's patience (before a block, the
// test waits for what the text before it says has happened). When port 3000 or 4020 is taken,
// the commands are pointed at a free port instead; that is the one change made to their text.

const SECTION = '## An agent whose refunds a person approves'
const WEAVE_PORT = 3000
const MODEL_PORT = 4020
/** The languages of the section's fenced blocks, in order: what `walkthrough` expects. */
const SHAPE = 'sh sh sh sh sh json sh sh json'

interface Walkthrough {
  /** First terminal: `npm start` with the example's handlers and model. */
  weave: FencedBlock
  /** Second terminal: the scripted model. */
  model: FencedBlock
  /** Third terminal, in order. */
  tokens: FencedBlock
  start: FencedBlock
  ask: FencedBlock
  asked: FencedBlock
  approve: FencedBlock
  finish: FencedBlock
  finished: FencedBlock
  /** The handler log lines the text says Weave's terminal shows, in order. */
  toolLines: string[]
}

function walkthrough(readme: string): Walkthrough {
  const section = readmeSection(readme, SECTION)
  const blocks = fencedBlocks(section)
  const shape = blocks.map((b) => b.lang).join(' ')
  if (shape !== SHAPE) {
    throw new Error(`the section's blocks are now "${shape}", not "${SHAPE}": update this test`)
  }
  const [weave, model, tokens, start, ask, asked, approve, finish, finished] = blocks
  return {
    weave: weave!,
    model: model!,
    tokens: tokens!,
    start: start!,
    ask: ask!,
    asked: asked!,
    approve: approve!,
    finish: finish!,
    finished: finished!,
    toolLines: [...section.matchAll(/`(tool [\w.]+ \{[^`]*\})`/g)].map((m) => m[1]!),
  }
}

/** The handler log lines in an output (`tool <handler> <arguments>`), in order. */
function toolLines(output: string): string[] {
  return [...output.matchAll(/^tool \S+ .*$/gm)].map((m) => m[0])
}

/** The turns the scripted model answered, from its one line per request. */
function modelTurns(output: string): number[] {
  return [...output.matchAll(/^model turn (\d+):/gm)].map((m) => Number(m[1]))
}

/** A JSON block the README shows, with its `"..."` elisions standing for any text. */
function shown(block: FencedBlock): unknown {
  const elide = (value: unknown): unknown => {
    if (value === '...') return expect.any(String)
    if (Array.isArray(value)) return value.map(elide)
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, elide(v)]))
    }
    return value
  }
  return elide(JSON.parse(block.code))
}

/** A block that ran cleanly: its last command succeeded and nothing went to stderr. */
function expectClean(result: ShellResult): ShellResult {
  expect(result, result.stderr).toMatchObject({ status: 0, stderr: '' })
  return result
}

describe('the README support agent walk-through, run as written', () => {
  let walk: Walkthrough
  let target: IsolatedTarget
  let env: NodeJS.ProcessEnv
  let weave: Watched
  let model: Watched
  let shell: Shell
  let baseUrl: string
  let jwtSecret: string
  /** The README's text of a block, pointed at the ports in use. */
  let asWritten: (code: string) => string

  beforeAll(async () => {
    walk = walkthrough(await readFile(`${ROOT}README.md`, 'utf8'))
    const weavePort = (await isFree(WEAVE_PORT)) ? WEAVE_PORT : await anyFreePort()
    const modelPort = (await isFree(MODEL_PORT)) ? MODEL_PORT : await anyFreePort()
    asWritten = (code) => {
      let text = code.trim()
      if (weavePort !== WEAVE_PORT) {
        text = text.replaceAll(`127.0.0.1:${WEAVE_PORT}`, `127.0.0.1:${weavePort}`)
      }
      if (modelPort !== MODEL_PORT) {
        text = text
          .replaceAll(`127.0.0.1:${MODEL_PORT}`, `127.0.0.1:${modelPort}`)
          .replace(/^npm run example:model$/m, `npm run example:model -- ${modelPort}`)
      }
      return text
    }
    baseUrl = `http://127.0.0.1:${weavePort}`
    target = isolatedTarget()
    jwtSecret = randomBytes(32).toString('hex')
    env = {
      ...process.env,
      WEAVE_MIGRATE_DATABASE_URL: target.databaseUrl,
      WEAVE_DATABASE_URL: target.runtimeUrl,
      REDIS_URL: target.redisUrl,
      WEAVE_QUEUE_PREFIX: target.queuePrefix,
      WEAVE_JWT_SECRET: jwtSecret,
      LOG_LEVEL: process.env.WEAVE_TEST_LOG_LEVEL ?? 'warn',
      ...(weavePort === WEAVE_PORT ? {} : { PORT: String(weavePort) }),
    }
    const ready = async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok === true
    const started = await Promise.allSettled([
      startWatched('bash', ['-c', asWritten(walk.weave.code)], {
        ready,
        what: 'npm start (the first terminal)',
        env,
        timeoutMs: 90_000,
      }),
      startWatched('bash', ['-c', asWritten(walk.model.code)], {
        ready: 'scripted model on',
        what: 'the scripted model (the second terminal)',
        env,
      }),
    ])
    // Each one that started is kept, so afterAll stops it even when the other failed.
    if (started[0].status === 'fulfilled') weave = started[0].value
    if (started[1].status === 'fulfilled') model = started[1].value
    for (const result of started) if (result.status === 'rejected') throw result.reason
    shell = startShell(env)
  })
  afterAll(async () => {
    await Promise.allSettled([shell?.close(), stopWatched(weave), stopWatched(model)])
    await target?.remove()
  })

  /** The values of the shell's variables `names`. */
  async function variables(...names: string[]): Promise<string[]> {
    const printed = await shell.run(`printf '%s\\n' ${names.map((n) => `"$${n}"`).join(' ')}`)
    return printed.stdout.split('\n').slice(0, names.length)
  }

  /** Waits, as the reader does, until the run is in the state the README describes next. */
  async function waitForRun(
    runId: string,
    token: string,
    what: string,
    done: (run: any) => boolean,
  ) {
    let run: any
    await waitUntil(
      async () => {
        if (!isRunning(weave.child)) throw new Error(`npm start exited: ${weave.output()}`)
        const res = await fetch(`${baseUrl}/v1/runs/${runId}`, {
          headers: { authorization: `Bearer ${token}` },
        })
        run = await res.json()
        return done(run)
      },
      30_000,
      () => `the run to be ${what} (last: ${JSON.stringify(run)})`,
    )
  }

  it('starts the agent, sees it ask about the refund, approves it as Bob, and sees the run finish', async () => {
    expectClean(await shell.run(asWritten(walk.tokens.code)))
    const registered = expectClean(await shell.run(asWritten(walk.start.code)))
    expect(jsonValues(registered.stdout)).toEqual([
      expect.objectContaining({ name: 'support-agent', version: 1 }),
    ])
    const [alice, runId] = await variables('ALICE', 'RUN')
    expect(runId).toMatch(/^[0-9a-f-]{36}$/)

    // "The agent looked the order up ... and now waits on step support, for an approval".
    await waitForRun(runId!, alice!, 'waiting on an approval', (run) => {
      return run.status === 'waiting' && run.pendingApprovals?.length > 0
    })
    await waitUntil(
      () => toolLines(weave.output()).length > 0,
      10_000,
      () => `the lookup in Weave's terminal: ${weave.output()}`,
    )
    expect(toolLines(weave.output())).toEqual(walk.toolLines.slice(0, 1))

    const asked = expectClean(await shell.run(asWritten(walk.ask.code)))
    const [runView, approvalView] = jsonValues(asked.stdout)
    expect(runView).toMatchObject({
      status: 'waiting',
      lastStep: 'support',
      waitingOn: expect.objectContaining({ step: 'support' }),
      pendingApprovals: [expect.any(String)],
    })
    expect(approvalView).toEqual(shown(walk.asked))

    // "Alice is refused with 403 separation-of-duties even with the approvals:decide scope".
    const pending = JSON.parse((await variables('PENDING'))[0]!).items[0]
    const aliceDecider = await mintDevToken({
      secret: jwtSecret,
      tenant: 'acme',
      subject: 'alice',
      scopes: ['runs:read', 'approvals:read', 'approvals:decide'],
      audience: 'weave',
      expiresIn: 600,
      tenantClaim: 'tid',
    })
    const refused = await fetch(`${baseUrl}/v1/approvals/${pending.id}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceDecider}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve', materialHash: pending.materialHash }),
    })
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { type: string }).type).toMatch(/\/separation-of-duties$/)

    const approved = expectClean(await shell.run(asWritten(walk.approve.code)))
    expect(jsonValues(approved.stdout)).toEqual([
      {
        status: 'approved',
        decisions: [expect.objectContaining({ by: 'bob', decision: 'approve' })],
      },
    ])

    // "The refund runs ... and the model, asked a third and last time, answers".
    await waitForRun(runId!, alice!, 'finished', (run) => {
      return !['queued', 'running', 'waiting'].includes(run.status)
    })
    const finished = expectClean(await shell.run(asWritten(walk.finish.code)))
    expect(jsonValues(finished.stdout)).toEqual([shown(walk.finished)])

    // What ran, from the handlers' and the model's own lines: the lookup and the refund once
    // each, the account never closed, and the model asked three times, the wait included.
    await waitUntil(
      () => toolLines(weave.output()).length >= 2 && modelTurns(model.output()).length >= 3,
      10_000,
      () => `the refund and the third model turn: ${weave.output()}${model.output()}`,
    )
    expect(toolLines(weave.output())).toEqual(walk.toolLines)
    expect(weave.output()).not.toMatch(/^tool accounts\.close/m)
    expect(modelTurns(model.output())).toEqual([0, 1, 2])
  })
})
