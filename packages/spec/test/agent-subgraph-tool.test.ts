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
