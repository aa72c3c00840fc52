import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectPage, expectProblem } from './support/expect-http.js'
import {
  startWeave,
  waitForRun,
  waitForStep,
  waitUntil,
  type WeaveProcesses,
} from './support/weave-processes.js'

// The README's "An agent whose refunds a person approves", step by step over HTTP: the example's
// scripted model (examples/support-agent/model-server.ts) and handlers
// (examples/support-agent/handlers.ts), with the environment the README gives `npm start`.

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const MODEL_PORT = 4020
// The README's scopes for Alice (who starts the run) and Bob (who approves it).
const ALICE_SCOPES = 'graphs:read graphs:write runs:read runs:write'
const BOB_SCOPES = 'runs:read approvals:read approvals:decide'
const INPUT = {
  customer: 'ada',
  orderId: 'A-1001',
  complaint: 'My order arrived damaged. Refund it and close my account.',
}

/** A child process whose stdout and stderr are kept as one text. */
interface Watched {
  child: ChildProcess
  output(): string
}

function watch(child: ChildProcess): Watched {
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return { child, output: () => output }
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer()
  server.listen(port, '127.0.0.1')
  try {
    await once(server, 'listening')
  } catch {
    return false
  }
  server.close()
  await once(server, 'close')
  return true
}

async function anyFreePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  await once(server, 'close')
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** Starts `npm run example:model` on its port (another when that one is taken). */
async function startModel(): Promise<{ url: string; model: Watched }> {
  const port = (await isFree(MODEL_PORT)) ? MODEL_PORT : await anyFreePort()
  const model = watch(
    spawn(
      process.execPath,
      ['--import', 'tsx', 'examples/support-agent/model-server.ts', String(port)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  )
  await waitUntil(
    () => {
      if (model.child.exitCode !== null) throw new Error(`the model exited: ${model.output()}`)
      return model.output().includes('scripted model on')
    },
    20_000,
    'the scripted model',
  )
  return { url: `http://127.0.0.1:${port}/v1`, model }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

/** The tool calls the handlers logged, in order: `[handler, arguments]`. */
function toolCalls(output: string): Array<[string, unknown]> {
  return [...output.matchAll(/^tool (\S+) (.*)$/gm)].map((m) => [m[1]!, JSON.parse(m[2]!)])
}

/** The requests the scripted model answered, by turn. */
function modelTurns(output: string): number[] {
  return [...output.matchAll(/^model turn (\d+):/gm)].map((m) => Number(m[1]))
}

describe('the README support agent, as data', () => {
  let weave: WeaveProcesses
  let model: Watched
  let worker: Watched

  beforeAll(async () => {
    const started = await startModel()
    model = started.model
    // The worker is started apart, to read what the example's handlers log.
    weave = await startWeave({
      workers: 0,
      env: {
        // As the README writes it: a path relative to the working directory (the repo root).
        WEAVE_HANDLERS: 'examples/support-agent/handlers.ts',
        WEAVE_LLM_BASE_URL: started.url,
      },
    })
    worker = watch(await weave.startWorker({ pipeOutput: true }))
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), stop(model?.child)])
  })

  it('runs a refund the agent asks for only once a person other than the starter approves it, and never closes the account', async () => {
    const graphFile = JSON.parse(await readFile(`${ROOT}examples/support-agent/graph.json`, 'utf8'))
    const alice = await weave.token('acme', 'alice', ALICE_SCOPES)
    const bob = await weave.token('acme', 'bob', BOB_SCOPES)

    const registered = await weave.call('POST', '/v1/graphs', { token: alice, body: graphFile })
    expect(expectJson(registered, 201)).toMatchObject({ name: 'support-agent', version: 1 })

    const started = await weave.call('POST', '/v1/runs', {
      token: alice,
      body: { graph: 'support-agent', input: INPUT },
    })
    const runId: string = expectJson(started, 202).id

    // The agent looked the order up, then asked about the refund before running it.
    const waiting = await waitForStep(weave, alice, runId, 'support')
    expect(waiting).toMatchObject({ status: 'waiting', lastStep: 'support' })
    expect(waiting.pendingApprovals).toHaveLength(1)
    const pending = expectPage(
      await weave.call('GET', `/v1/approvals?status=pending&runId=${runId}`, { token: bob }),
    )
    expect(pending).toHaveLength(1)
    const approval = pending[0]
    expect(approval).toMatchObject({
      id: waiting.pendingApprovals[0],
      runId,
      step: 'support',
      status: 'pending',
      title: 'Refund 250 for order A-1001?',
      details: {
        tool: 'refund',
        arguments: { orderId: 'A-1001', amount: 250 },
        callId: 'call_refund',
        assistantMessage: expect.stringContaining('refund'),
      },
      separationOfDuties: true,
      materialHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    await waitUntil(
      () => toolCalls(worker.output()).length === 1,
      10_000,
      () => `the lookup in the worker's output: ${worker.output()}`,
    )
    expect(toolCalls(worker.output())).toEqual([['orders.lookup', { orderId: 'A-1001' }]])

    // Alice started the run: even holding the scope to decide, she may not approve its calls.
    const decision = {
      decision: 'approve',
      comment: 'damaged on arrival',
      materialHash: approval.materialHash,
    }
    const path = `/v1/approvals/${approval.id}/decision`
    const aliceDecider = await weave.token('acme', 'alice', `${ALICE_SCOPES} approvals:decide`)
    const refused = expectProblem(
      await weave.call('POST', path, { token: aliceDecider, body: decision }),
      403,
    )
    expect(refused.type).toMatch(/\/separation-of-duties$/)

    const decided = await weave.call('POST', path, { token: bob, body: decision })
    expect(expectJson(decided, 200)).toMatchObject({
      status: 'approved',
      decisions: [{ by: 'bob', decision: 'approve', comment: 'damaged on arrival' }],
    })

    const done = await waitForRun(weave, alice, runId, ['completed'])
    expect(done.state.reply).toBe(
      'I refunded 250 for order A-1001 (refund rf_A-1001). Closing your account is not something I may do; a colleague will contact you about it.',
    )
    expect(done.state.support).toMatchObject({ done: true, turns: 3, toolCalls: 2, pending: [] })
    expect(
      done.state.support.calls.map((c: any) => [
        c.tool,
        c.permission,
        c.outcome,
        c.decision?.status,
      ]),
    ).toEqual([
      ['lookup_order', 'allow', 'ran', undefined],
      ['refund', 'ask', 'ran', 'approved'],
      ['close_account', 'deny', 'denied', undefined],
    ])

    // What ran: the lookup once, the refund once for 250, the account never closed; the model
    // was asked three times, the wait for the approval included.
    await waitUntil(
      () => toolCalls(worker.output()).length >= 2 && modelTurns(model.output()).length >= 3,
      10_000,
      () => `the refund and the third model turn in the logs: ${worker.output()}${model.output()}`,
    )
    expect(toolCalls(worker.output())).toEqual([
      ['orders.lookup', { orderId: 'A-1001' }],
      ['payments.refund', { orderId: 'A-1001', amount: 250 }],
    ])
    expect(modelTurns(model.output())).toEqual([0, 1, 2])
  })
})
