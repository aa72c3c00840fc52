import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson } from './support/expect-http.js'
import {
  startIdempotentService,
  startScriptedModel,
  type HeldRequest,
  type IdempotentService,
  type ModelRequest,
  type ScriptedModel,
} from './support/agent-fakes.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  type WeaveProcesses,
} from './support/weave-processes.js'

// An agent loop of two turns (the model asks for one tool call, then answers with its result)
// whose worker is killed with SIGKILL at each point of the loop, then taken over by a fresh
// worker. Each kill point is reached by holding a request open in a fake until the worker is
// dead, never by sleeping:
//   (a) before the model call: the first turn's request is held, unanswered;
//   (b) after the model reply is checkpointed: its `agent.message` event is recorded (events
//       are written with their checkpoint) and the tool request is held before it is carried out;
//   (c) in the middle of the tool call: the service carried it out and holds the answer;
//   (d) after the tool call finished: its `tool.completed` event is recorded and the second
//       turn's request is held, unanswered.
// What the fakes count is what the issue asks: the model answered each turn once, and each tool
// call was carried out once.

const SCOPES = 'graphs:read graphs:write runs:read runs:write'
const STEP = 'assist'
const CALL_ID = 'call_ticket'

/** The conversation of a run for `case`: its first user message, as the model receives it. */
const conversationOf = (name: string) => `Case ${name}: the office printer is broken.`

/** The two turns: open a ticket, then say which one the service opened. */
function script(request: ModelRequest) {
  if (request.turn === 0) {
    return {
      content: 'I will open a ticket.',
      toolCalls: [
        { id: CALL_ID, name: 'open_ticket', arguments: { subject: request.conversation } },
      ],
    }
  }
  const result = request.messages.find((m) => m.role === 'tool' && m.tool_call_id === CALL_ID)
  const ticket = JSON.parse(result?.content ?? '{}')?.body?.ticketId
  return { content: `Ticket ${ticket} is open.` }
}

function agentGraph(service: IdempotentService) {
  return {
    name: 'ticket-agent',
    spec: {
      entry: STEP,
      input: { type: 'object', required: ['case'], properties: { case: { type: 'string' } } },
      steps: {
        [STEP]: {
          kind: 'agent',
          model: 'scripted',
          prompt: conversationOf('{{ case }}'),
          tools: {
            open_ticket: {
              description: 'Open a support ticket',
              parameters: {
                type: 'object',
                required: ['subject'],
                properties: { subject: { type: 'string' } },
                additionalProperties: false,
              },
              call: { kind: 'http', method: 'POST', url: `${service.url}/tickets` },
            },
          },
          permissions: [{ tool: 'open_ticket', permission: 'allow' }],
          limits: { maxTurns: 4, maxToolCalls: 4 },
        },
      },
    },
  }
}

describe('an agent loop whose worker is killed with SIGKILL', () => {
  let weave: WeaveProcesses
  let model: ScriptedModel
  let service: IdempotentService
  let token: string
  /** The one worker alive: each kill replaces it with a fresh one. */
  let worker: ChildProcess

  beforeAll(async () => {
    model = await startScriptedModel(script)
    service = await startIdempotentService()
    weave = await startWeave({
      workers: 1,
      env: {
        WEAVE_LLM_BASE_URL: model.url,
        WEAVE_HTTP_ALLOW: service.host,
        // A dead worker's job is retaken within about four seconds. One worker is alive at a
        // time, so the short lock only speeds the takeover up.
        WEAVE_WORKER_LOCK_MS: '3000',
        WEAVE_WORKER_STALLED_INTERVAL_MS: '500',
      },
    })
    worker = weave.workers[0]!
    token = await weave.token('t-agent-crash', 'ops', SCOPES)
    const graph = agentGraph(service)
    expectJson(await weave.call('POST', '/v1/graphs', { token, body: graph }), 201)
  })
  afterAll(async () => {
    await Promise.allSettled([weave?.stop(), model?.close(), service?.close()])
  })

  async function startRun(name: string): Promise<string> {
    const started = await weave.call('POST', '/v1/runs', {
      token,
      body: { graph: 'ticket-agent', input: { case: name } },
    })
    return expectJson(started, 202).id
  }

  /**
   * Kills the worker holding the run with SIGKILL, once a fresh one is starting: the fresh one
   * boots while the dead one's job lock runs out, then takes the run over.
   */
  async function killWorker(): Promise<void> {
    const victim = worker
    worker = await weave.startWorker()
    await weave.killWorker(victim)
    expect(victim.signalCode).toBe('SIGKILL')
  }

  async function eventsOf(runId: string) {
    return runEvents(weave, token, runId)
  }

  /**
   * What every scenario ends with: the run completed with the answer built from the one ticket
   * the service opened; the model answered each of the two turns exactly once; the tool call
   * was carried out exactly once under its `<runId>:<step>:<callId>` key, however often it was
   * sent (`sent`); and the record holds each turn and the call's completion once.
   */
  async function expectExactlyOnce(runId: string, name: string, sent: number) {
    const done = await waitForRun(weave, token, runId, ['completed'], 60_000)
    const key = `${runId}:${STEP}:${CALL_ID}`
    expect(service.executions()).toMatchObject({ [key]: 1 })
    expect(Object.keys(service.executions()).filter((k) => k.startsWith(`${runId}:`))).toEqual([
      key,
    ])
    expect(service.requests(key)).toBe(sent)
    const ticketOfRun = JSON.parse(done.state[STEP].messages.at(-2).content).body.ticketId
    expect(done.state[STEP]).toMatchObject({
      done: true,
      turns: 2,
      toolCalls: 1,
      pending: [],
      result: `Ticket ${ticketOfRun} is open.`,
      calls: [{ callId: CALL_ID, tool: 'open_ticket', permission: 'allow', outcome: 'ran' }],
    })
    // A reply counts only when the fake wrote it in full to a worker still connected (see
    // ScriptedModel.replies); a request whose worker was killed before its answer is a re-ask
    // of the same turn, counted apart in `abandoned`, never a second reply. Exactly one reply per
    // turn means the run never asked the model again for a turn it had checkpointed.
    expect(model.replies(conversationOf(name))).toEqual([1, 1])

    const events = await eventsOf(runId)
    const messages = events.filter((e) => e.type === 'agent.message').map((e) => e.data.turn)
    expect(messages).toEqual([1, 2])
    const completed = events.filter((e) => e.type === 'tool.completed').map((e) => e.data.callId)
    expect(completed).toEqual([CALL_ID])
    expect(events.at(-1)?.type).toBe('run.completed')
  }

  /** Waits for a held request, then checks what the run had recorded when the worker died. */
  async function killOnArrival<T>(held: HeldRequest<T>, runId: string, recorded: string[]) {
    await held.arrived
    const types = (await eventsOf(runId)).map((e) => e.type)
    expect(types.filter((t) => t === 'agent.message' || t === 'tool.completed')).toEqual(recorded)
    await killWorker()
    await held.abandoned
  }

  it('(a) killed before the model call: the new worker asks the first turn once', async () => {
    const name = 'a'
    const firstTurn = model.holdNext((r) => r.conversation === conversationOf(name) && r.turn === 0)
    const runId = await startRun(name)
    await killOnArrival(firstTurn, runId, [])

    await expectExactlyOnce(runId, name, 1)
    expect(model.abandoned(conversationOf(name))).toEqual([1])
  })

  it('(b) killed after the model reply is checkpointed: the turn is not asked again, the call runs once', async () => {
    const name = 'b'
    const toolCall = service.holdNext('before-execution')
    const runId = await startRun(name)
    await killOnArrival(toolCall, runId, ['agent.message'])

    // The dead worker's request was never carried out; the new worker sent the call again.
    await expectExactlyOnce(runId, name, 2)
    expect(model.abandoned(conversationOf(name))).toEqual([])
  })

  it('(c) killed in the middle of the tool call: the service answers the resent call from memory', async () => {
    const name = 'c'
    const toolCall = service.holdNext('after-execution')
    const runId = await startRun(name)
    await killOnArrival(toolCall, runId, ['agent.message'])
    const key = `${runId}:${STEP}:${CALL_ID}`
    expect(service.executions()[key]).toBe(1)

    // Sent twice with one key, carried out once: the answer the dead worker lost reached the
    // new one from the service's memory.
    await expectExactlyOnce(runId, name, 2)
    expect(model.abandoned(conversationOf(name))).toEqual([])
  })

  it('(d) killed after the tool call finished: the call is not sent again, the second turn is asked once', async () => {
    const name = 'd'
    const secondTurn = model.holdNext(
      (r) => r.conversation === conversationOf(name) && r.turn === 1,
    )
    const runId = await startRun(name)
    await killOnArrival(secondTurn, runId, ['agent.message', 'tool.completed'])

    await expectExactlyOnce(runId, name, 1)
    expect(model.abandoned(conversationOf(name))).toEqual([0, 1])
  })
})
