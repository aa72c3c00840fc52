import { MemStore, type Json, type State } from '@weave/kernel'
import {
  compileGraph,
  createHandlerRegistry,
  defineHandler,
  GraphSpec,
  validateSpec,
} from '@weave/spec'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sendJson, startLocalServer, type LocalServer } from './support/local-server.js'

// An agent tool that runs a registered graph: the arguments are the child run's input, its final
// state is the result, and its steps are checkpointed under the call, so a crash never makes a
// finished child step run again.

let chat: LocalServer
const toolCall = (id: string, name: string, args: Json) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
})
// Turn 1 asks for a quote, turn 2 answers with the text.
const REPLIES: Json[] = [
  { content: null, tool_calls: [toolCall('call/1', 'quote', { sku: 'A', qty: 3 })] },
  { content: 'That is 30.' },
]

beforeAll(async () => {
  chat = await startLocalServer((req, res) => {
    const body = JSON.parse(req.body) as { messages: Array<{ role: string }> }
    const turn = body.messages.filter((m) => m.role === 'assistant').length
    sendJson(res, 200, {
      choices: [{ index: 0, message: { role: 'assistant', ...(REPLIES[turn] as object) } }],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    })
  })
})
afterAll(() => chat.close())

let priced: State[] = []
let failNextTotal = false
beforeEach(() => {
  priced = []
  failNextTotal = false
})

const handlers = createHandlerRegistry([
  defineHandler('catalog.price', (input) => {
    priced.push(input)
    return { unit: 10 }
  }),
  defineHandler('catalog.total', (input) => {
    if (failNextTotal) {
      failNextTotal = false
      throw new Error('catalog unavailable')
    }
    return { total: Number(input.unit) * Number(input.qty) }
  }),
])

const pricing = GraphSpec.parse({
  entry: 'price',
  steps: {
    price: { kind: 'handler', name: 'catalog.price', next: 'total' },
    total: { kind: 'handler', name: 'catalog.total' },
  },
})

function agentSpec() {
  return GraphSpec.parse({
    entry: 'agent',
    steps: {
      agent: {
        kind: 'agent',
        model: 'm',
        prompt: 'Quote {{ sku }}',
        tools: {
          quote: {
            description: 'Price an order',
            parameters: {
              type: 'object',
              required: ['sku', 'qty'],
              properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
            },
            readOnly: true,
            call: { kind: 'subgraph', graph: 'pricing' },
          },
        },
      },
    },
  })
}

async function compileAgent() {
  const deps = {
    handlers,
    llm: { baseUrl: `${chat.origin}/v1`, backoffMs: 1 },
    loadSubgraph: async (name: string) => (await compileGraph(name, pricing, deps)).graph,
  }
  return (await compileGraph('agent', agentSpec(), deps)).graph
}

describe('an agent subgraph tool', () => {
  it("runs the graph with the call's arguments and gives its final state to the model", async () => {
    const graph = await compileAgent()
    const store = new MemStore()
    const r = await graph.run({ sku: 'A' }, { store })
    expect(r.stopReason).toBe('completed')
    expect(priced).toEqual([{ sku: 'A', qty: 3 }])
    const messages = (r.state.agent as { messages: Array<{ role: string; content: string }> })
      .messages
    const result = messages.find((m) => m.role === 'tool')!
    expect(JSON.parse(result.content)).toEqual({ sku: 'A', qty: 3, unit: 10, total: 30 })
    // The child run is named by the call, with the call id's `/` kept out of the run id.
    expect(await store.list('checkpoint:pricing', '')).toContain(`${r.runId}/agent:call%2F1`)
  })

  it('picks a child that failed half-way up where it stopped when the run is resumed', async () => {
    const graph = await compileAgent()
    const store = new MemStore()
    failNextTotal = true
    const failed = await graph.run({ sku: 'A' }, { store })
    expect(failed.stopReason).toBe('error')
    expect(priced).toHaveLength(1)
    const done = await graph.resume(failed.runId, {}, { store })
    expect(done.stopReason).toBe('completed')
    expect(priced).toEqual([{ sku: 'A', qty: 3 }])
    // Resuming the finished run again runs nothing more.
    await graph.resume(failed.runId, {}, { store })
    expect(priced).toHaveLength(1)
  })

  it('is refused at registration when its graph can wait', async () => {
    const waits = GraphSpec.parse({
      entry: 'ok',
      steps: { ok: { kind: 'approval', title: 'OK?' } },
    })
    const result = await validateSpec(agentSpec(), {
      resolveGraph: (name) => (name === 'pricing' ? waits : undefined),
    })
    expect(result.ok).toBe(false)
    expect(result.ok ? [] : result.problems).toEqual([
      {
        path: '/steps/agent/tools/quote/call/graph',
        message: expect.stringContaining('an agent tool cannot suspend'),
      },
    ])
    const unknown = await validateSpec(agentSpec(), { resolveGraph: () => undefined })
    expect(unknown.ok ? [] : unknown.problems).toEqual([
      { path: '/steps/agent/tools/quote/call/graph', message: 'unknown graph "pricing"' },
    ])
  })
})

describe('the budgets of an agent whose subgraph tool runs agents', () => {
  // The parent plans and asks `research` once; the child's agent answers in one reply. Replies
  // are chosen by the conversation's prompt; the child's model calls are the expensive ones.
  let model: LocalServer
  beforeAll(async () => {
    model = await startLocalServer((req, res) => {
      const body = JSON.parse(req.body) as { messages: Array<{ role: string; content: string }> }
      const child = body.messages.some((m) => m.role === 'user' && m.content.startsWith('Study'))
      const turn = body.messages.filter((m) => m.role === 'assistant').length
      const message = child
        ? { content: 'Found it.' }
        : turn === 0
          ? { content: null, tool_calls: [toolCall('r1', 'research', { topic: 'tides' })] }
          : { content: 'Done.' }
      sendJson(res, 200, {
        choices: [{ index: 0, message: { role: 'assistant', ...message } }],
        usage: child
          ? { prompt_tokens: 100, completion_tokens: 50 }
          : { prompt_tokens: 10, completion_tokens: 5 },
      })
    })
  })
  afterAll(() => model.close())
  let before = 0
  beforeEach(() => {
    before = model.received.length
  })
  const requests = () =>
    model.received.slice(before).map(
      (r) =>
        JSON.parse(r.body) as {
          max_tokens?: number
          messages: Array<{ role: string; content: string }>
        },
    )
  const isChild = (r: { messages: Array<{ role: string; content: string }> }) =>
    r.messages.some((m) => m.role === 'user' && m.content.startsWith('Study'))

  const research = GraphSpec.parse({
    entry: 'study',
    steps: { study: { kind: 'agent', model: 'm', prompt: 'Study {{ topic }}', tools: {} } },
  })
  function planner(limits?: { tokens: number }) {
    return GraphSpec.parse({
      entry: 'plan',
      steps: {
        plan: {
          kind: 'agent',
          model: 'm',
          prompt: 'Plan',
          tools: {
            research: {
              description: 'Research a topic',
              parameters: { type: 'object', properties: { topic: { type: 'string' } } },
              readOnly: true,
              call: { kind: 'subgraph', graph: 'research' },
            },
          },
          ...(limits ? { limits } : {}),
        },
      },
    })
  }
  async function compilePlanner(spec: GraphSpec) {
    const deps = {
      llm: { baseUrl: `${model.origin}/v1`, backoffMs: 1 },
      loadSubgraph: async (name: string) => (await compileGraph(name, research, deps)).graph,
    }
    return (await compileGraph('planner', spec, deps)).graph
  }
  type Conversation = {
    usage: { inputTokens: number; outputTokens: number }
    calls: Array<{ usage?: unknown }>
    stopped?: string
  }

  it("counts what the child's agents spent in the calling agent's usage", async () => {
    const graph = await compilePlanner(planner())
    const r = await graph.run({}, { store: new MemStore() })
    expect(r.stopReason).toBe('completed')
    const c = r.state.plan as Conversation
    // Two replies of the planner (10 + 5 each) and one of the child (100 + 50).
    expect(c.usage).toMatchObject({ inputTokens: 120, outputTokens: 60 })
    expect(c.calls[0]!.usage).toEqual({ inputTokens: 100, outputTokens: 50 })
    expect(requests().filter(isChild)).toHaveLength(1)
  })

  it('gives the child what is left of the budget and stops before a call past it', async () => {
    const graph = await compilePlanner(planner({ tokens: 100 }))
    const store = new MemStore()
    const r = await graph.run({}, { store })
    expect(r.stopReason).toBe('completed')
    const sent = requests()
    // The child's reply is capped to what the planner had left after its first reply (100 - 15).
    expect(sent.filter(isChild).map((q) => q.max_tokens)).toEqual([85])
    // What the child spent passed the budget: the planner stops instead of asking its model again.
    expect(sent.filter((q) => !isChild(q))).toHaveLength(1)
    const c = r.state.plan as Conversation
    expect(c.stopped).toBe('tokens')
    expect(c.usage).toMatchObject({ inputTokens: 110, outputTokens: 55 })
  })

  it('counts what the child spent once when the run is resumed after the child failed past its agent', async () => {
    const studyThenTotal = GraphSpec.parse({
      entry: 'study',
      steps: {
        study: { kind: 'agent', model: 'm', prompt: 'Study {{ topic }}', tools: {}, next: 'total' },
        total: { kind: 'handler', name: 'catalog.total' },
      },
    })
    const deps = {
      handlers,
      llm: { baseUrl: `${model.origin}/v1`, backoffMs: 1 },
      loadSubgraph: async (name: string) => (await compileGraph(name, studyThenTotal, deps)).graph,
    }
    const graph = (await compileGraph('planner', planner(), deps)).graph
    const store = new MemStore()
    failNextTotal = true
    const failed = await graph.run({}, { store })
    expect(failed.stopReason).toBe('error')
    const done = await graph.resume(failed.runId, {}, { store })
    expect(done.stopReason).toBe('completed')
    // The child's model was asked once, and what it spent is counted once.
    expect(requests().filter(isChild)).toHaveLength(1)
    expect((done.state.plan as Conversation).usage).toMatchObject({
      inputTokens: 120,
      outputTokens: 60,
    })
  })

  it('lets a subgraph tool run an agent that never asks a person, and no other', async () => {
    const valid = await validateSpec(planner(), { resolveGraph: () => research })
    expect(valid.ok ? [] : valid.problems).toEqual([])
    const asking = GraphSpec.parse({
      entry: 'study',
      steps: {
        study: {
          kind: 'agent',
          model: 'm',
          prompt: 'Study {{ topic }}',
          tools: {
            note: {
              description: 'Write a note',
              parameters: { type: 'object' },
              call: { kind: 'handler', handler: 'notes.write' },
            },
          },
        },
      },
    })
    const refused = await validateSpec(planner(), { resolveGraph: () => asking })
    expect(refused.ok ? [] : refused.problems).toEqual([
      {
        path: '/steps/plan/tools/research/call/graph',
        message: expect.stringContaining('has the agent step "study"'),
      },
    ])
    const allowing = GraphSpec.parse({
      ...asking,
      steps: {
        study: {
          ...asking.steps.study,
          permissions: [{ tool: 'note', permission: 'allow' }],
        },
      },
    })
    const allowed = await validateSpec(planner(), { resolveGraph: () => allowing })
    expect(allowed.ok ? [] : allowed.problems).toEqual([])
  })
})
