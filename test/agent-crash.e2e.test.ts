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
  type ServiceRequest,
} from './support/agent-fakes.js'
import {
  runEvents,
  startWeave,
  waitForRun,
  type WeaveProcesses,
} from './support/weave-processes.js'
import { waitUntil } from './support/wait-until.js'

// An agent loop of two turns (the model asks for one tool call, then answers with its result)
// whose worker is killed with SIGKILL at each point of the loop, then taken over by a fresh
// worker. Each kill point is reached by holding something until the worker is dead, never by
// sleeping:
//   (a) before the model call, that is before the model answered: the first turn's request
//       is held, unanswered;
//   (b) after the model replied, before its reply is checkpointed: the reply is delivered while
//       the test holds the run's row, so the checkpoint write waits (and dies with the worker);
//   (c) after the model reply is checkpointed: its `agent.message` event is recorded (events
//       are written with their checkpoint) and the tool request is held before it is carried out;
//   (d) in the middle of the tool call: the service carried it out and holds the answer;
//   (e) after the tool call finished: its `tool.completed` event is recorded and the second
//       turn's request is held, unanswered.
// What the fakes count is what the issue asks: the model answered each turn once, and each tool
// call was carried out once.

const SCOPES = 'graphs:read graphs:write runs:read runs:write'
const STEP = 'assist'
const CALL_ID = 'call_ticket'

/** The conversation of a run for `case`: its first user message, as the model receives it. */
const conversationOf = (name: string) => `Case ${name}: the office printer is broken.`

/** Whether a request to the service is the tool call of the run for `case`. */
const isCallOf = (request: ServiceRequest, name: string) =>
  (request.body as { subject?: unknown } | undefined)?.subject === conversationOf(name)

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
   * The backends of this database waiting for a lock (the worker's: only its writes take the
   * run's row), those running `statement` when given. Asked outside the test's transaction, as
   * a transaction sees one snapshot of `pg_stat_activity` until it ends.
   */
  async function lockWaiters(statement?: string): Promise<number[]> {
    const waiting = await weave.owner.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'
         AND ($1::text IS NULL OR query LIKE '%' || $1 || '%')`,
      [statement ?? null],
    )
    return waiting.rows.map((r) => r.pid)
  }

  /**
   * What every scenario ends with: the run completed with the answer built from the one ticket
   * the service opened; the model answered each of the two turns exactly once; the tool call
   * was carried out exactly once under its `<runId>:<step>:<callId>` key, however often it was
   * sent (`sent`); and the record holds each turn and the call's completion once. `lostReplies`
   * are the replies, by turn, the model delivered to a worker killed before it checkpointed them.
   */
  async function expectExactlyOnce(
    runId: string,
    name: string,
    o: { sent: number; lostReplies?: number[] },
  ) {
    const done = await waitForRun(weave, token, runId, ['completed'], 60_000)
    const key = `${runId}:${STEP}:${CALL_ID}`
    expect(service.executions()).toMatchObject({ [key]: 1 })
    expect(Object.keys(service.executions()).filter((k) => k.startsWith(`${runId}:`))).toEqual([
      key,
    ])
    expect(service.requests(key)).toBe(o.sent)
    const ticketOfRun = JSON.parse(done.state[STEP].messages.at(-2).content).body.ticketId
    expect(done.state[STEP]).toMatchObject({
      done: true,
      turns: 2,
      toolCalls: 1,
      pending: [],
      result: `Ticket ${ticketOfRun} is open.`,
      calls: [{ callId: CALL_ID, tool: 'open_ticket', permission: 'allow', outcome: 'ran' }],
    })
    // The model is called once per turn when, for each turn, exactly one reply reached a worker
    // that lived to checkpoint it. The fake counts a reply once it wrote it in full to an open
    // connection (ScriptedModel.replies); a request whose worker died before the answer is never
    // answered (counted apart, in `abandoned`). A reply that reached a worker killed before its
    // checkpoint is lost with that worker: asking again for that turn is a re-ask, not a second
    // turn, so those replies (`lostReplies`, known from where the test killed) are taken out.
    const lost = o.lostReplies ?? []
    const delivered = model.replies(conversationOf(name))
    expect(delivered).toEqual([1 + (lost[0] ?? 0), 1 + (lost[1] ?? 0)])
    expect(delivered.map((n, turn) => n - (lost[turn] ?? 0))).toEqual([1, 1])

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

  it('(a) killed before the model answered: the new worker asks the first turn once', async () => {
    const name = 'a'
    const firstTurn = model.holdNext((r) => r.conversation === conversationOf(name) && r.turn === 0)
    const runId = await startRun(name)
    await killOnArrival(firstTurn, runId, [])

    await expectExactlyOnce(runId, name, { sent: 1 })
    expect(model.abandoned(conversationOf(name))).toEqual([1])
  })

  it('(b) killed after the model replied, before its checkpoint: the lost reply is asked for again, once', async () => {
    const name = 'b'
    const conversation = conversationOf(name)
    const firstTurn = model.holdNext((r) => r.conversation === conversation && r.turn === 0)
    const runId = await startRun(name)
    await firstTurn.arrived
    // A checkpoint write locks the run's row first (weave_save_step), so while the test holds
    // that row the worker has the reply in hand and its checkpoint on the way, not written.
    const victim = worker
    const lock = await weave.owner.connect()
    try {
      await lock.query('BEGIN')
      await lock.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [runId])
      firstTurn.release()
      await waitUntil(
        async () => (await lockWaiters('weave_save_step')).length > 0,
        30_000,
        "the reply's checkpoint write to wait for the run's row",
      )
      expect(model.replies(conversation)).toEqual([1])
      const types = (await eventsOf(runId)).map((e) => e.type)
      expect(types).not.toContain('agent.message')
      await weave.killWorker(victim)
      expect(victim.signalCode).toBe('SIGKILL')
      // Postgres notices a dead client only when it next talks to it; ending the dead worker's
      // waiting statements here makes the write as lost as if it had never left the worker.
      const waiters = await lockWaiters()
      await weave.owner.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
        waiters,
      ])
      await waitUntil(
        async () => {
          const alive = await weave.owner.query(
            'SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])',
            [waiters],
          )
          return alive.rowCount === 0
        },
        30_000,
        "the dead worker's statements to end",
      )
    } finally {
      await lock.query('ROLLBACK')
      lock.release()
      // Whatever failed, the next scenario needs a live worker.
      if (victim.signalCode !== null) worker = await weave.startWorker()
    }

    await expectExactlyOnce(runId, name, { sent: 1, lostReplies: [1] })
    expect(model.abandoned(conversation)).toEqual([])
  })

  it('(c) killed after the model reply is checkpointed: the turn is not asked again, the call runs once', async () => {
    const name = 'c'
    const toolCall = service.holdNext('before-execution', (r) => isCallOf(r, name))
    const runId = await startRun(name)
    await killOnArrival(toolCall, runId, ['agent.message'])

    // The dead worker's request was never carried out; the new worker sent the call again.
    await expectExactlyOnce(runId, name, { sent: 2 })
    expect(model.abandoned(conversationOf(name))).toEqual([])
  })

  it('(d) killed in the middle of the tool call: the service answers the resent call from memory', async () => {
    const name = 'd'
    const toolCall = service.holdNext('after-execution', (r) => isCallOf(r, name))
    const runId = await startRun(name)
    await killOnArrival(toolCall, runId, ['agent.message'])
    const key = `${runId}:${STEP}:${CALL_ID}`
    expect(service.executions()[key]).toBe(1)

    // Sent twice with one key, carried out once: the answer the dead worker lost reached the
    // new one from the service's memory.
    await expectExactlyOnce(runId, name, { sent: 2 })
    expect(model.abandoned(conversationOf(name))).toEqual([])
  })

  it('(e) killed after the tool call finished: the call is not sent again, the second turn is asked once', async () => {
    const name = 'e'
    const secondTurn = model.holdNext(
      (r) => r.conversation === conversationOf(name) && r.turn === 1,
    )
    const runId = await startRun(name)
    await killOnArrival(secondTurn, runId, ['agent.message', 'tool.completed'])

    await expectExactlyOnce(runId, name, { sent: 1 })
    expect(model.abandoned(conversationOf(name))).toEqual([0, 1])
  })
})
