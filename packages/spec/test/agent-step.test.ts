import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadCheckpoint, MemStore, type Json, type RunResult, type State } from '@weave/kernel'
import {
  approvalMaterialHash,
  canonicalDigest,
  approvalRecordKeys,
  clientStateProblems,
  compileGraph,
  createHandlerRegistry,
  defineHandler,
  GraphSpec,
  validateSpec,
} from '@weave/spec'
import { sendJson, startLocalServer, type LocalServer } from './support/local-server.js'
import { createYieldHost } from './support/yield-host.js'

/** One scripted model reply: tool calls `[id, tool, arguments]` and/or a final text. */
interface Reply {
  content?: string | null
  calls?: Array<[string, string, Json | string]>
}

let chatServer: LocalServer
let toolServer: LocalServer
// The fake answers by how many assistant messages the request already holds, so a resumed or
// forked conversation gets the same reply for the same turn, and every request is recorded.
let script: Reply[] = []

beforeAll(async () => {
  chatServer = await startLocalServer((req, res) => {
    const body = JSON.parse(req.body) as { messages: Array<{ role: string }> }
    const turn = body.messages.filter((m) => m.role === 'assistant').length
    const reply = script[turn] ?? { content: 'out of script' }
    const toolCalls = reply.calls?.map(([id, name, args]) => ({
      id,
      type: 'function',
      function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
    }))
    sendJson(res, 200, {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content ?? null,
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    })
  })
  toolServer = await startLocalServer((req, res) => {
    const body = JSON.parse(req.body) as { amount: number }
    sendJson(res, 201, { refunded: body.amount })
  })
})
afterAll(async () => {
  await chatServer.close()
  await toolServer.close()
})

let chatsBefore = 0
let refundsBefore = 0
beforeEach(() => {
  chatsBefore = chatServer.received.length
  refundsBefore = toolServer.received.length
})
/** The chat requests of the current test, parsed. */
const chats = () => chatServer.received.slice(chatsBefore).map((r) => JSON.parse(r.body))
/** The refund requests the http tool sent in the current test. */
const refunds = () => toolServer.received.slice(refundsBefore)
const refundAmounts = () => refunds().map((r) => (JSON.parse(r.body) as { amount: number }).amount)

const lookupParameters = {
  type: 'object',
  required: ['orderId'],
  properties: { orderId: { type: 'string' } },
  additionalProperties: false,
}
const refundParameters = {
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'number' } },
  additionalProperties: false,
}

function tools() {
  return {
    lookup: {
      description: 'Look an order up',
      parameters: lookupParameters,
      readOnly: true,
      call: { kind: 'handler', handler: 'orders.lookup' },
    },
    refund: {
      description: 'Refund an amount',
      parameters: refundParameters,
      call: { kind: 'http', method: 'POST', url: '{{ payments }}/refunds' },
    },
  }
}

async function setup(
  agent: Record<string, unknown>,
  replies: Reply[],
  options: { maxIterations?: number; allow?: string[] } = {},
) {
  script = replies
  const host = createYieldHost()
  const lookups: State[] = []
  const handlers = createHandlerRegistry([
    defineHandler('orders.lookup', (args) => {
      lookups.push(args)
      return { orderId: args.orderId ?? null, status: 'shipped' }
    }),
  ])
  const doc = {
    entry: 'agent',
    ...(options.maxIterations === undefined
      ? {}
      : { limits: { maxIterations: options.maxIterations } }),
    steps: {
      agent: {
        kind: 'agent',
        model: 'gpt-x',
        system: 'You help with orders.',
        prompt: 'Help {{ customer }}',
        tools: tools(),
        ...agent,
        next: 'after',
      },
      after: { kind: 'set', values: { after: 'true' } },
    },
  }
  const spec = GraphSpec.parse(doc)
  const events: Array<{ seq: number; type: string; data: unknown }> = []
  const deps = {
    agentEvents: (at: { seq: number }, unit: Array<{ type: string; data: unknown }>) => {
      for (const e of unit) events.push({ seq: at.seq, ...e })
    },
    handlers,
    http: { allow: options.allow ?? ['127.0.0.1'] },
    llm: { baseUrl: `${chatServer.origin}/v1`, apiKey: 'sk-test', backoffMs: 1 },
    approvals: host.approvals,
  }
  const { graph } = await compileGraph('g', spec, deps)
  const store = new MemStore()
  const input = { customer: 'Ada', payments: toolServer.origin }
  return {
    graph,
    store,
    host,
    lookups,
    events,
    run: async () => host.record(await graph.run(input, { store })),
    resume: async (runId: string, resumeInput: State = {}) =>
      host.record(await graph.resume(runId, resumeInput, { store })),
  }
}

const decision = (status: string): Json => ({
  status,
  approvalId: 'a-1',
  decisions: [
    { by: 'bob', decision: status, comment: null, input: null, at: '2030-01-01T00:00:00Z' },
  ],
})

function conversation(r: RunResult) {
  return r.state.agent as any
}

describe('agent step: permissions', () => {
  it('runs the read-only calls of one reply together, in one step, then one at a time again', async () => {
    const g = await setup({ permissions: [{ tool: 'refund', permission: 'deny' }] }, [
      {
        content: 'Looking both up.',
        calls: [
          ['call_a', 'lookup', { orderId: 'A1' }],
          ['call_b', 'lookup', { orderId: 'B2' }],
          ['call_r', 'refund', { amount: 5 }],
        ],
      },
      { content: 'Both shipped.' },
    ])
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(g.lookups).toEqual([{ orderId: 'A1' }, { orderId: 'B2' }])
    expect(conversation(r).calls.map((c: any) => [c.callId, c.outcome])).toEqual([
      ['call_a', 'ran'],
      ['call_b', 'ran'],
      ['call_r', 'denied'],
    ])
    // model, both lookups together, the refund refused, model: four units of the step.
    const units = (await g.graph.history(r.runId, { store: g.store })).filter(
      (cp) => cp.lastStep === 'agent',
    )
    expect(units).toHaveLength(4)
  })

  it('runs an allowed call, gives its result to the model, and saves the final answer', async () => {
    const g = await setup({}, [
      { content: 'Let me look.', calls: [['call_1', 'lookup', { orderId: 'A1' }]] },
      { content: 'Order A1 has shipped.' },
    ])
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(r.state.after).toBe(true)
    expect(g.lookups).toEqual([{ orderId: 'A1' }])
    const c = conversation(r)
    expect(c).toMatchObject({
      done: true,
      result: 'Order A1 has shipped.',
      turns: 2,
      toolCalls: 1,
      pending: [],
      usage: { inputTokens: 20, outputTokens: 10 },
      calls: [{ callId: 'call_1', tool: 'lookup', permission: 'allow', outcome: 'ran' }],
    })
    expect(c.messages).toEqual([
      { role: 'system', content: 'You help with orders.' },
      { role: 'user', content: 'Help Ada' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'lookup', arguments: '{"orderId":"A1"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: JSON.stringify({ orderId: 'A1', status: 'shipped' }),
      },
      { role: 'assistant', content: 'Order A1 has shipped.' },
    ])
    const sent = chats()
    expect(sent).toHaveLength(2)
    expect(sent[0]).toEqual({
      model: 'gpt-x',
      messages: c.messages.slice(0, 2),
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Look an order up',
            parameters: lookupParameters,
          },
        },
        {
          type: 'function',
          function: {
            name: 'refund',
            description: 'Refund an amount',
            parameters: refundParameters,
          },
        },
      ],
    })
    expect(sent[1].messages).toEqual(c.messages.slice(0, 4))
    // One unit of work per kernel step: model, tool, model, then the step's own next.
    const history = await g.graph.history(r.runId, { store: g.store })
    expect(history.map((h) => h.lastStep)).toEqual(['agent', 'agent', 'agent', 'after'])
  })

  it('never runs a denied call and tells the model it was refused by policy', async () => {
    const g = await setup({ permissions: [{ tool: 'ref*', permission: 'deny' }] }, [
      { calls: [['call_1', 'refund', { amount: 5 }]] },
      { content: 'I cannot refund that.' },
    ])
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(refunds()).toEqual([])
    expect(g.host.reasons).toEqual([])
    const c = conversation(r)
    expect(c.messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'This call was refused by policy; it was not run.',
    })
    expect(c.calls).toEqual([
      { callId: 'call_1', tool: 'refund', permission: 'deny', outcome: 'denied' },
    ])
    expect(c.result).toBe('I cannot refund that.')
  })

  it('decides by the first rule whose tool and `when` match the arguments', async () => {
    const g = await setup(
      {
        permissions: [
          { tool: 'refund', when: 'amount > 10000', permission: 'deny' },
          { tool: 'refund', when: 'amount <= 100', permission: 'allow' },
          { tool: 'refund', permission: 'ask', approval: { title: 'Refund {{ amount }}?' } },
        ],
      },
      [
        {
          calls: [
            ['c_small', 'refund', { amount: 50 }],
            ['c_mid', 'refund', { amount: 500 }],
            ['c_huge', 'refund', { amount: 20000 }],
          ],
        },
        { content: 'Done.' },
      ],
    )
    const r = await g.run()
    expect(r.stopReason).toBe('yielded')
    expect(refundAmounts()).toEqual([50])
    expect(g.host.asks).toHaveLength(1)
    expect(g.host.asks[0]).toMatchObject({ title: 'Refund 500?', details: { callId: 'c_mid' } })
    g.host.settle(r.runId, 'agent', decision('approved'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(refundAmounts()).toEqual([50, 500])
    expect(conversation(done).calls.map((c: any) => [c.callId, c.permission, c.outcome])).toEqual([
      ['c_small', 'allow', 'ran'],
      ['c_mid', 'ask', 'ran'],
      ['c_huge', 'deny', 'denied'],
    ])
  })

  it('sends invalid arguments back to the model with the errors, never to the tool', async () => {
    const g = await setup({ permissions: [{ tool: '*', permission: 'allow' }] }, [
      {
        calls: [
          ['call_1', 'refund', { amount: 'lots' }],
          ['call_2', 'lookup', 'not json'],
          ['call_3', 'lookup', { orderId: 'A1', __admin: true }],
          ['call_4', 'teleport', {}],
        ],
      },
      { content: 'Sorry.' },
    ])
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(refunds()).toEqual([])
    expect(g.lookups).toEqual([])
    const c = conversation(r)
    expect(c.messages.slice(3, 7).map((m: any) => m.content)).toEqual([
      'The arguments are invalid, so the call was not run: /amount: must be number',
      'The arguments are invalid, so the call was not run: the arguments are not valid JSON',
      'The arguments are invalid, so the call was not run: /__admin: keys starting with "__" are reserved',
      'There is no tool "teleport"; the call was not run.',
    ])
    expect(c.calls.every((x: any) => x.outcome === 'invalid' && x.permission === null)).toBe(true)
    expect(c.toolCalls).toBe(0)
  })

  it('sends http tools through the http step’s egress rules', async () => {
    const g = await setup(
      { permissions: [{ tool: 'refund', permission: 'allow' }] },
      [{ calls: [['call_1', 'refund', { amount: 5 }]] }],
      { allow: [] },
    )
    const r = await g.run()
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'EgressDeniedError' })
    expect(refunds()).toEqual([])
  })
})

describe('agent step: asking a person', () => {
  const refundTurn: Reply[] = [
    { content: 'I will refund 500.', calls: [['call_1', 'refund', { amount: 500 }]] },
    { content: 'Refunded.' },
  ]
  const askRule = {
    tool: 'refund',
    permission: 'ask',
    approval: {
      approvers: { scopes: ['refunds'] },
      required: 2,
      separationOfDuties: true,
      timeout: 'PT1H',
    },
  }
  const material = {
    title: 'Allow refund?',
    details: {
      tool: 'refund',
      arguments: { amount: 500 },
      callId: 'call_1',
      assistantMessage: 'I will refund 500.',
    },
  }
  const materialHash = approvalMaterialHash(material.title, material.details)

  it('yields an approval whose material is the exact call, before running anything', async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    expect(r.stopReason).toBe('yielded')
    const where = { runId: r.runId, step: 'agent', seq: 2 }
    expect(g.host.reasons).toEqual([
      {
        kind: 'approvals',
        ...where,
        approvals: [
          {
            kind: 'approval',
            ...where,
            ...material,
            materialHash,
            approvers: { scopes: ['refunds'] },
            required: 2,
            separationOfDuties: true,
            timeoutMs: 3_600_000,
            onTimeout: 'expire',
            saveAs: 'agent/calls/call_1',
            inputSchema: {
              type: 'object',
              properties: { arguments: refundParameters },
              additionalProperties: false,
            },
            callId: 'call_1',
          },
        ],
      },
    ])
    expect(refunds()).toEqual([])
    // The model's reply was checkpointed before the call was asked about.
    expect(conversation(r).pending).toEqual([
      { callId: 'call_1', tool: 'refund', arguments: '{"amount":500}' },
    ])
    expect(conversation(r).asking).toEqual({ seq: 2, callIds: ['call_1'] })
  })

  it('runs an approved call exactly once, keyed by run, step and call id', async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    g.host.settle(r.runId, 'agent', decision('approved'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(g.host.asked).toEqual([materialHash])
    expect(refunds()).toHaveLength(1)
    expect(refunds()[0]!.headers['idempotency-key']).toBe(`${r.runId}:agent:call_1`)
    expect(JSON.parse(refunds()[0]!.body)).toEqual({ amount: 500 })
    const c = conversation(done)
    expect(c.calls).toEqual([
      {
        callId: 'call_1',
        tool: 'refund',
        permission: 'ask',
        outcome: 'ran',
        decision: decision('approved'),
        argumentsDigest: canonicalDigest({ amount: 500 }),
      },
    ])
    expect(c.messages[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: JSON.stringify({ status: 201, body: { refunded: 500 } }),
    })
    expect(c.result).toBe('Refunded.')
    expect(done.state.after).toBe(true)
  })

  it('reports each unit as run events: the reply, the calls asked for, the decision, the result', async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    g.host.settle(r.runId, 'agent', decision('approved'))
    await g.resume(r.runId)
    const call = { step: 'agent', callId: 'call_1', tool: 'refund' }
    expect(g.events).toEqual([
      {
        seq: 1,
        type: 'agent.message',
        data: expect.objectContaining({
          step: 'agent',
          turn: 1,
          toolCalls: [{ callId: 'call_1', tool: 'refund' }],
        }),
      },
      { seq: 1, type: 'tool.requested', data: { ...call, arguments: '{"amount":500}' } },
      { seq: 3, type: 'tool.decided', data: { ...call, approvalId: 'a-1', status: 'approved' } },
      {
        seq: 3,
        type: 'tool.completed',
        data: {
          ...call,
          readOnly: false,
          argumentsDigest: canonicalDigest({ amount: 500 }),
          approvalId: 'a-1',
          edited: false,
        },
      },
      {
        seq: 4,
        type: 'agent.message',
        data: { step: 'agent', turn: 2, content: 'Refunded.', toolCalls: [] },
      },
    ])
  })

  it('runs the call with the arguments an approver changed it to, keeping both on the record', async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    const edit = {
      ...(decision('approved') as object),
      decisions: [
        {
          by: 'bob',
          decision: 'approve',
          comment: 'half is fair',
          input: { arguments: { amount: 250 } },
          at: '2030-01-01T00:00:00Z',
        },
      ],
    }
    g.host.settle(r.runId, 'agent', edit)
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(refundAmounts()).toEqual([250])
    const [settled] = conversation(done).calls
    expect(settled).toMatchObject({
      outcome: 'ran',
      editedArguments: { amount: 250 },
      argumentsDigest: canonicalDigest({ amount: 250 }),
    })
    // The original call stays in the conversation as the model asked it.
    expect(conversation(done).pending).toEqual([])
    expect(JSON.stringify(conversation(done).messages)).toContain('{\\"amount\\":500}')
  })

  it("gives the model a person's answer instead of a result when they reject with a comment", async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    const respond = {
      ...(decision('rejected') as object),
      decisions: [
        {
          by: 'bob',
          decision: 'reject',
          comment: 'Offer a voucher instead.',
          input: null,
          at: '2030-01-01T00:00:00Z',
        },
      ],
    }
    g.host.settle(r.runId, 'agent', respond)
    const done = await g.resume(r.runId)
    expect(refunds()).toEqual([])
    const tool = conversation(done).messages.find((m: any) => m.role === 'tool')
    expect(tool.content).toBe(
      'A person answered instead of running this call: Offer a voucher instead.',
    )
  })

  it('runs nothing when an approver changes the call into one another rule governs', async () => {
    const small = { tool: 'refund', when: 'amount < 1000', permission: 'ask' }
    const large = { ...askRule, when: 'amount >= 1000' }
    const g = await setup({ permissions: [small, large] }, refundTurn)
    const r = await g.run()
    const edit = {
      ...(decision('approved') as object),
      decisions: [
        {
          by: 'bob',
          decision: 'approve',
          comment: null,
          input: { arguments: { amount: 5000 } },
          at: '2030-01-01T00:00:00Z',
        },
      ],
    }
    g.host.settle(r.runId, 'agent', edit)
    const done = await g.resume(r.runId)
    expect(refunds()).toEqual([])
    expect(conversation(done).calls[0]).toMatchObject({ outcome: 'denied' })
  })

  it('offers the approver only what the rule allows: no edit, no answer, or no approval as asked', async () => {
    const rule = (allow: string[]) => ({ ...askRule, approval: { ...askRule.approval, allow } })
    const g = await setup({ permissions: [rule(['accept', 'ignore'])] }, refundTurn)
    const r = await g.run()
    const [reason] = g.host.asks as any[]
    expect(reason.details.allow).toEqual(['accept', 'ignore'])
    expect(reason.materialHash).toBe(approvalMaterialHash(reason.title, reason.details))
    // No edit: the approval takes no input, so a changed call is refused when it is decided.
    expect(reason.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    })
    const answered = {
      ...(decision('rejected') as object),
      decisions: [
        { by: 'bob', decision: 'reject', comment: 'Say sorry.', input: null, at: '2030-01-01' },
      ],
    }
    g.host.settle(r.runId, 'agent', answered)
    const done = await g.resume(r.runId)
    // No respond: the comment stays on the record, the model is only told of the refusal.
    const tool = conversation(done).messages.find((m: any) => m.role === 'tool')
    expect(tool.content).toBe('A person refused this call; it was not run.')

    const editOnly = await setup({ permissions: [rule(['edit'])] }, refundTurn)
    const asked = await editOnly.run()
    editOnly.host.settle(asked.runId, 'agent', decision('approved'))
    const refused = await editOnly.resume(asked.runId)
    expect(refunds()).toEqual([])
    expect(conversation(refused).calls[0]).toMatchObject({ outcome: 'denied' })
  })

  it('runs nothing when quorum approvers did not all approve the same changed call', async () => {
    const approve = (by: string, input: Json) => ({
      by,
      decision: 'approve',
      comment: null,
      input,
      at: '2030-01-01T00:00:00Z',
    })
    for (const decisions of [
      // The second approver's change was never seen by the first.
      [approve('bob', null), approve('carol', { arguments: { amount: 5000 } })],
      [
        approve('bob', { arguments: { amount: 100 } }),
        approve('carol', { arguments: { amount: 5000 } }),
      ],
    ]) {
      const g = await setup({ permissions: [askRule] }, refundTurn)
      const r = await g.run()
      g.host.settle(r.runId, 'agent', { ...(decision('approved') as object), decisions })
      const done = await g.resume(r.runId)
      expect(refunds()).toEqual([])
      expect(conversation(done).calls[0]).toMatchObject({ outcome: 'denied' })
    }
    // Both approving the same change runs it.
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    const same = { arguments: { amount: 300 } }
    g.host.settle(r.runId, 'agent', {
      ...(decision('approved') as object),
      decisions: [approve('bob', same), approve('carol', same)],
    })
    await g.resume(r.runId)
    expect(refundAmounts()).toEqual([300])
  })

  it('never runs a changed call the rules deny', async () => {
    const g = await setup(
      { permissions: [{ tool: 'refund', when: 'amount > 10000', permission: 'deny' }, askRule] },
      refundTurn,
    )
    const r = await g.run()
    g.host.settle(r.runId, 'agent', {
      ...(decision('approved') as object),
      decisions: [
        {
          by: 'bob',
          decision: 'approve',
          comment: null,
          input: { arguments: { amount: 50000 } },
          at: '2030-01-01T00:00:00Z',
        },
      ],
    })
    const done = await g.resume(r.runId)
    expect(refunds()).toEqual([])
    expect(conversation(done).calls[0]).toMatchObject({ outcome: 'denied' })
  })

  it('never runs a rejected call and tells the model a person refused it', async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    g.host.settle(r.runId, 'agent', decision('rejected'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(refunds()).toEqual([])
    const c = conversation(done)
    expect(c.messages[3].content).toBe('A person refused this call; it was not run.')
    expect(c.calls[0]).toMatchObject({ outcome: 'rejected', decision: decision('rejected') })
  })

  it('asks again when resumed without a settled decision, whatever the state or input says', async () => {
    const g = await setup({ permissions: [askRule] }, refundTurn)
    const r = await g.run()
    const plain = await g.resume(r.runId, { approved: true })
    expect(plain.stopReason).toBe('yielded')
    // A conversation rewritten to claim the call was approved is no decision either.
    const forged = {
      ...conversation(r),
      calls: [{ callId: 'call_1', tool: 'refund', permission: 'allow', outcome: 'ran' }],
    }
    const again = await g.resume(r.runId, { agent: forged })
    expect(again.stopReason).toBe('yielded')
    expect(refunds()).toEqual([])
    // Each time the same approval, opened where the call was first asked about.
    expect(g.host.asks.map((x) => [x.seq, x.materialHash])).toEqual([
      [2, materialHash],
      [2, materialHash],
      [2, materialHash],
    ])
    g.host.settle(r.runId, 'agent', decision('approved'))
    expect((await g.resume(r.runId)).stopReason).toBe('completed')
    expect(refunds()).toHaveLength(1)
  })

  const twoRefunds: Reply[] = [
    {
      calls: [
        ['call_a', 'refund', { amount: 1 }],
        ['call_b', 'refund', { amount: 2 }],
      ],
    },
    { content: 'One refunded, one refused.' },
  ]
  const askEach = { permissions: [{ tool: 'refund', permission: 'ask' }] }

  it('asks about every call of a turn at once, one approval each, and runs nothing meanwhile', async () => {
    const g = await setup(askEach, twoRefunds)
    const r = await g.run()
    expect(r.stopReason).toBe('yielded')
    expect(g.host.reasons).toHaveLength(1)
    expect(g.host.reasons[0]).toMatchObject({ kind: 'approvals', step: 'agent', seq: 2 })
    const [a, b] = g.host.asks
    expect([a?.callId, b?.callId]).toEqual(['call_a', 'call_b'])
    expect([a?.seq, b?.seq]).toEqual([2, 2])
    expect(a?.details).toMatchObject({ callId: 'call_a', arguments: { amount: 1 } })
    expect(b?.details).toMatchObject({ callId: 'call_b', arguments: { amount: 2 } })
    // Each approval is bound to its own call.
    expect(a?.materialHash).not.toBe(b?.materialHash)
    expect(a?.saveAs).toBe('agent/calls/call_a')
    expect(b?.saveAs).toBe('agent/calls/call_b')
    // Resumed with one call settled, it runs nothing and asks about the same two approvals.
    g.host.settle(r.runId, 'agent', decision('rejected'), 'call_b')
    const early = await g.resume(r.runId)
    expect(early.stopReason).toBe('yielded')
    expect(refunds()).toEqual([])
    expect(g.host.asks.slice(2).map((x) => [x.seq, x.callId, x.materialHash])).toEqual([
      [2, 'call_a', a?.materialHash],
      [2, 'call_b', b?.materialHash],
    ])
    expect(chats()).toHaveLength(1)
  })

  it('runs each call by its own decision once all are settled, then asks the model once with every result', async () => {
    const g = await setup(askEach, twoRefunds)
    const r = await g.run()
    // Decided in the opposite order of the calls, in opposite ways.
    g.host.settle(r.runId, 'agent', decision('rejected'), 'call_b')
    g.host.settle(r.runId, 'agent', decision('approved'), 'call_a')
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(refundAmounts()).toEqual([1])
    expect(g.host.reasons).toHaveLength(1)
    // The model is asked again only once both calls are settled, and sees both results.
    const sent = chats()
    expect(sent).toHaveLength(2)
    expect(sent[1].messages.slice(-2).map((m: any) => [m.tool_call_id, m.content])).toEqual([
      ['call_a', JSON.stringify({ status: 201, body: { refunded: 1 } })],
      ['call_b', 'A person refused this call; it was not run.'],
    ])
    const c = conversation(done)
    expect(c.calls.map((x: any) => [x.callId, x.outcome])).toEqual([
      ['call_a', 'ran'],
      ['call_b', 'rejected'],
    ])
    expect(c.asking).toBeUndefined()
    expect(c.result).toBe('One refunded, one refused.')
  })

  it('asks only about the calls the rules send to a person, and runs the others in order', async () => {
    const g = await setup(
      {
        permissions: [
          { tool: 'refund', when: 'amount <= 100', permission: 'allow' },
          { tool: 'refund', when: 'amount > 10000', permission: 'deny' },
          { tool: 'refund', permission: 'ask' },
        ],
      },
      [
        {
          calls: [
            ['c1', 'refund', { amount: 500 }],
            ['c2', 'refund', { amount: 50 }],
            ['c3', 'refund', { amount: 20000 }],
            ['c4', 'refund', { amount: 700 }],
          ],
        },
        { content: 'Done.' },
      ],
    )
    const r = await g.run()
    expect(g.host.asks.map((x) => x.callId)).toEqual(['c1', 'c4'])
    expect(refunds()).toEqual([])
    g.host.settle(r.runId, 'agent', decision('approved'), 'c4')
    g.host.settle(r.runId, 'agent', decision('approved'), 'c1')
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(refundAmounts()).toEqual([500, 50, 700])
  })
})

describe('agent step: durability', () => {
  const replies: Reply[] = [
    {
      calls: [
        ['call_1', 'lookup', { orderId: 'A1' }],
        ['call_2', 'refund', { amount: 7 }],
      ],
    },
    { calls: [['call_3', 'lookup', { orderId: 'B2' }]] },
    { content: 'All done.' },
  ]
  const allowAll = { permissions: [{ tool: '*', permission: 'allow' }] }

  it('calls the model once per turn and runs each call once when resumed after every checkpoint', async () => {
    const g = await setup(allowAll, replies, { maxIterations: 1 })
    let r = await g.run()
    let invocations = 1
    while (r.stopReason === 'max_iter') {
      r = await g.resume(r.runId)
      invocations++
    }
    expect(r.stopReason).toBe('completed')
    // model, lookup, refund, model, lookup, model, after
    expect(invocations).toBe(7)
    expect(chats()).toHaveLength(3)
    expect(g.lookups).toEqual([{ orderId: 'A1' }, { orderId: 'B2' }])
    expect(refundAmounts()).toEqual([7])
    expect(conversation(r)).toMatchObject({ done: true, turns: 3, toolCalls: 3 })
  })

  it('a fork from any checkpoint repeats no model turn and no finished call it holds', async () => {
    const g = await setup(allowAll, replies)
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    const history = await g.graph.history(r.runId, { store: g.store })
    expect(history).toHaveLength(7)
    for (const { seq } of history) {
      const at = await loadCheckpoint(g.store, 'g', r.runId, seq)
      const held = at.state.agent as { turns: number; toolCalls: number; done: boolean }
      const chatCount = chatServer.received.length
      const lookupCount = g.lookups.length
      const refundCount = toolServer.received.length
      const fork = await g.graph.resumeAt(r.runId, seq, {}, { store: g.store, newRunId: `f${seq}` })
      expect(fork.stopReason).toBe('completed')
      expect(conversation(fork).result).toBe('All done.')
      const ran = g.lookups.length - lookupCount + (toolServer.received.length - refundCount)
      expect([chatServer.received.length - chatCount, ran]).toEqual([
        3 - held.turns,
        3 - held.toolCalls,
      ])
    }
  })
})

describe('agent step: limits', () => {
  const lookupForever: Reply[] = Array.from({ length: 10 }, (_, i) => ({
    calls: [[`call_${i}`, 'lookup', { orderId: `O${i}` }] as [string, string, Json]],
  }))

  it('stops cleanly at maxTurns and goes on by next', async () => {
    const g = await setup({ limits: { maxTurns: 2 } }, lookupForever)
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(chats()).toHaveLength(2)
    expect(g.lookups).toHaveLength(2)
    expect(conversation(r)).toMatchObject({ done: true, stopped: 'max-turns', turns: 2 })
    expect(conversation(r).result).toBeUndefined()
    expect(r.state.after).toBe(true)
  })

  it('stops cleanly before a tool call beyond maxToolCalls', async () => {
    const g = await setup({ limits: { maxToolCalls: 1 } }, [
      {
        calls: [
          ['call_1', 'lookup', { orderId: 'A1' }],
          ['call_2', 'lookup', { orderId: 'A2' }],
        ],
      },
    ])
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(g.lookups).toEqual([{ orderId: 'A1' }])
    expect(conversation(r)).toMatchObject({
      done: true,
      stopped: 'max-tool-calls',
      toolCalls: 1,
      pending: [{ callId: 'call_2' }],
    })
    expect(r.state.after).toBe(true)
  })

  it('stops cleanly once usage reaches the token limit', async () => {
    const g = await setup({ limits: { tokens: 15 } }, lookupForever)
    const r = await g.run()
    expect(r.stopReason).toBe('completed')
    expect(chats()).toHaveLength(1)
    expect(g.lookups).toEqual([])
    expect(conversation(r)).toMatchObject({
      done: true,
      stopped: 'tokens',
      usage: { inputTokens: 10, outputTokens: 5 },
    })
    expect(r.state.after).toBe(true)
  })

  // Every reply of the fake costs 10 input and 5 output tokens.
  const maxTokensSent = () => chats().map((c) => c.max_tokens)

  it('caps each reply to the tokens left and never makes a call whose input alone would pass the budget', async () => {
    const g = await setup({ limits: { tokens: 40 } }, lookupForever)
    const r = await g.run()
    // 40 left, then 40 - 15 used - 15 the next request repeats = 10, then 40 - 30 - 15 < 1.
    expect(maxTokensSent()).toEqual([40, 10])
    expect(g.lookups).toHaveLength(2)
    expect(conversation(r)).toMatchObject({
      done: true,
      stopped: 'tokens',
      usage: { inputTokens: 20, outputTokens: 10, lastCallTokens: 15 },
    })
    expect(g.events.filter((e) => e.type === 'agent.stopped')).toEqual([
      {
        seq: expect.any(Number),
        type: 'agent.stopped',
        data: { step: 'agent', reason: 'tokens', usage: { inputTokens: 20, outputTokens: 10 } },
      },
    ])
    expect(r.state.after).toBe(true)
  })

  it('prices each call with the prices of its model and stops before a call that would pass the dollar budget', async () => {
    // $2 and $8 per million tokens: a reply costs (10 × 2 + 5 × 8) / 1e6 = $0.00006.
    const g = await setup(
      { limits: { usd: 0.00015 }, prices: { 'gpt-x': { input: 2, output: 8 } } },
      lookupForever,
    )
    const r = await g.run()
    // 150 µ$ left buys 18 output tokens; then 150 - 60 - 30 (the repeated input) = 60 µ$ buys 7;
    // then 150 - 120 - 30 leaves nothing.
    expect(maxTokensSent()).toEqual([18, 7])
    const c = conversation(r)
    expect(c).toMatchObject({ done: true, stopped: 'usd' })
    expect(c.usage.usd).toBeCloseTo(0.00012, 10)
    expect(g.events.find((e) => e.type === 'agent.stopped')?.data).toMatchObject({
      reason: 'usd',
      usage: { inputTokens: 20, outputTokens: 10 },
    })
  })

  it('counts what was used before a person was asked against the budget after the resume', async () => {
    const ask = { tool: 'refund', permission: 'ask' }
    const g = await setup({ limits: { tokens: 40 }, permissions: [ask] }, [
      { content: 'I will refund 500.', calls: [['call_1', 'refund', { amount: 500 }]] },
      ...lookupForever,
    ])
    const r = await g.run()
    expect(r.stopReason).toBe('yielded')
    g.host.settle(r.runId, 'agent', decision('approved'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(refunds()).toHaveLength(1)
    expect(maxTokensSent()).toEqual([40, 10])
    expect(conversation(done)).toMatchObject({ stopped: 'tokens', turns: 2 })
  })
})

describe('agent step: validation', () => {
  const agentWith = (tools: unknown, permissions?: unknown) => ({
    entry: 'a',
    steps: { a: { kind: 'agent', model: 'm', prompt: 'p', tools, permissions } },
  })
  const problemPaths = async (doc: unknown) => {
    const result = await validateSpec(doc)
    return result.ok ? [] : result.problems.map((p) => p.path)
  }
  const handlerTool = {
    description: 'd',
    parameters: { type: 'object' },
    call: { kind: 'handler', handler: 'h' },
  }

  it("refuses a dollar budget without a price for the step's model", async () => {
    const doc = (prices?: unknown) => ({
      entry: 'a',
      steps: {
        a: { kind: 'agent', model: 'm', prompt: 'p', tools: {}, limits: { usd: 1 }, prices },
      },
    })
    expect(await problemPaths(doc())).toEqual(['/steps/a/limits/usd'])
    expect(await problemPaths(doc({ other: { input: 1, output: 2 } }))).toEqual([
      '/steps/a/limits/usd',
    ])
    expect(await problemPaths(doc({ m: { input: 1, output: 2 } }))).toEqual([])
    expect(await problemPaths(doc({ m: { input: -1, output: 2 } }))).toEqual([
      '/steps/a/prices/m/input',
    ])
  })

  it('refuses tools with a bad name, a non-object or invalid parameters schema, or a bodiless method', async () => {
    expect(
      await problemPaths(
        agentWith({
          t: {
            ...handlerTool,
            parameters: { type: 'object', properties: { x: { type: 'nope' } } },
          },
          u: { ...handlerTool, parameters: { type: 'string' } },
          v: { ...handlerTool, call: { kind: 'http', method: 'GET', url: 'https://x' } },
        }),
      ),
    ).toEqual(
      expect.arrayContaining([
        '/steps/a/tools/t/parameters/properties/x/type',
        '/steps/a/tools/u/parameters',
        '/steps/a/tools/v/call/method',
      ]),
    )
    expect(await problemPaths(agentWith({ 'bad name': handlerTool }))).toEqual([
      '/steps/a/tools/bad name',
    ])
  })

  it('refuses rules naming an unknown tool and approval settings on a rule that never asks', async () => {
    expect(
      await problemPaths(
        agentWith({ t: handlerTool }, [
          { tool: 'typo', permission: 'allow' },
          { tool: 't', permission: 'deny', approval: { title: 'x' } },
          { tool: 'ty*', permission: 'allow' },
        ]),
      ),
    ).toEqual(['/steps/a/permissions/0/tool', '/steps/a/permissions/1/approval'])
  })

  it('refuses an agent whose conversation would overwrite an approval’s decision record', async () => {
    const result = await validateSpec({
      entry: 'a',
      steps: {
        a: { kind: 'approval', title: 'ok?', saveAs: 'chat', next: 'chat' },
        chat: { kind: 'agent', model: 'm', prompt: 'p', tools: {} },
      },
    })
    expect(result.ok ? [] : result.problems).toEqual([
      {
        path: '/steps/chat/saveAs',
        message: '"chat" holds an approval step\'s decision records; only that step writes it',
      },
    ])
  })

  it('refuses an http or llm step whose answer would land on an agent’s conversation', async () => {
    const result = await validateSpec({
      entry: 'support',
      steps: {
        support: { kind: 'http', method: 'GET', url: 'https://x.example', next: 'chat' },
        chat: { kind: 'agent', model: 'm', prompt: 'p', tools: {}, saveAs: 'support', next: 'ask' },
        ask: { kind: 'llm', model: 'm', prompt: 'p', saveAs: 'support' },
      },
    })
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      '/steps/support/saveAs',
      '/steps/ask/saveAs',
    ])
  })

  it('keeps a client from writing the conversation: its decisions and its counters', () => {
    const spec = {
      entry: 'chat',
      steps: {
        chat: { kind: 'agent', model: 'm', prompt: 'p', tools: {}, next: 'help' },
        help: { kind: 'agent', model: 'm', prompt: 'p', tools: {}, saveAs: 'support' },
      },
    }
    expect(approvalRecordKeys(spec)).toEqual(['chat', 'support'])
    const problems = clientStateProblems(
      { chat: { turns: 0, calls: [] }, support: {}, note: 'ok' },
      approvalRecordKeys(spec),
    )
    expect(problems.map((p) => p.path)).toEqual(['/chat', '/support'])
  })
})
