import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MemStore } from '@weave/kernel'
import { z } from 'zod'
import {
  compileGraph,
  createEgressPolicy,
  GraphSpec,
  mcpToolDigest,
  pinMcpTools,
  validateSpec,
} from '@weave/spec'
import { startMcpServer, type McpTestServer } from '../../../test/support/mcp-server.js'
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedReply,
} from '../../../test/support/scripted-model.js'

// An agent's mcp tools: pinned from the server's listing when the graph is registered, called
// only while the server still lists exactly the pinned tool, and only where egress allows.

let mcp: McpTestServer
let model: ScriptedModel

const refundTool = () => ({
  description: 'Refund an amount to a customer',
  input: { customer: z.string(), amount: z.number() },
  answer: (args: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: `refunded ${String(args.amount)}` }],
  }),
})

beforeAll(async () => {
  mcp = await startMcpServer({ refund: refundTool() })
  model = await startScriptedModel()
})
afterAll(async () => {
  await mcp.close()
  await model.close()
})
beforeEach(() => {
  mcp.tools.clear()
  mcp.tools.set('refund', refundTool())
  mcp.requests.length = 0
  mcp.calls.length = 0
  model.requests.length = 0
})

const allowLocal = () => ({ egress: createEgressPolicy([mcp.host]), timeoutMs: 5000 })

function agentDoc(tool: Record<string, unknown> = {}, server?: string) {
  return {
    entry: 'agent',
    steps: {
      agent: {
        kind: 'agent',
        model: 'scripted',
        prompt: 'Help {{ customer }}',
        tools: {
          refund: { call: { kind: 'mcp', server: server ?? mcp.url, tool: 'refund' }, ...tool },
        },
        permissions: [{ tool: 'refund', permission: 'allow' }],
      },
    },
  }
}

/** The document as registration stores it: pinned, then validated. */
async function pinned(doc: unknown = agentDoc()) {
  const result = await pinMcpTools(doc, allowLocal())
  expect(result.problems).toEqual([])
  const valid = await validateSpec(result.spec)
  if (!valid.ok) throw new Error(JSON.stringify(valid.problems))
  return valid.spec
}

async function run(
  spec: GraphSpec,
  replies: ScriptedReply[],
  allow = [mcp.host],
  timeoutMs?: number,
) {
  model.script = replies
  const { graph } = await compileGraph('g', spec, {
    http: { allow },
    llm: { baseUrl: model.baseUrl, backoffMs: 1 },
    ...(timeoutMs === undefined ? {} : { mcp: { timeoutMs } }),
  })
  return graph.run({ customer: 'ada' }, { store: new MemStore(), runId: 'run-1' })
}

const refundCall: ScriptedReply = { calls: [['call-1', 'refund', { customer: 'ada', amount: 40 }]] }

describe('pinning mcp tools at registration', () => {
  it("fills in the server's description, its inputSchema as parameters and the digest", async () => {
    const spec = await pinned()
    const step = spec.steps.agent
    const tool = step?.kind === 'agent' ? step.tools.refund : undefined
    const parameters = {
      type: 'object',
      properties: { customer: { type: 'string' }, amount: { type: 'number' } },
      required: ['customer', 'amount'],
    }
    expect(tool).toEqual({
      description: 'Refund an amount to a customer',
      parameters,
      call: {
        kind: 'mcp',
        server: mcp.url,
        tool: 'refund',
        // The digest is over what the server lists, draft-07 $schema included.
        digest: mcpToolDigest({
          name: 'refund',
          description: 'Refund an amount to a customer',
          inputSchema: { ...parameters, $schema: 'http://json-schema.org/draft-07/schema#' },
        }),
      },
    })
  })

  it("keeps the author's description, and pins again to the same document", async () => {
    const spec = await pinned(agentDoc({ description: 'Give money back' }))
    const again = await pinned(spec)
    expect(again).toEqual(spec)
    expect(spec.steps.agent).toMatchObject({
      tools: { refund: { description: 'Give money back' } },
    })
  })

  it("refuses parameters that are not the server's, and a digest the tool no longer has", async () => {
    const spec = await pinned()
    const { problems } = await pinMcpTools(
      agentDoc({ parameters: { type: 'object', properties: { amount: { type: 'number' } } } }),
      allowLocal(),
    )
    expect(problems).toEqual([
      {
        path: '/steps/agent/tools/refund/parameters',
        message: expect.stringContaining('not the inputSchema'),
      },
    ])
    mcp.tools.set('refund', { ...refundTool(), description: 'Refund, then email the customer' })
    const changed = await pinMcpTools(spec, allowLocal())
    expect(changed.problems).toEqual([
      {
        path: '/steps/agent/tools/refund/call/digest',
        message: expect.stringContaining('the tool "refund" of'),
      },
    ])
  })

  it('names the tool and the reason when its server lacks it, cannot be reached or is not allowed', async () => {
    mcp.tools.clear()
    const missing = await pinMcpTools(agentDoc(), allowLocal())
    expect(missing.problems).toEqual([
      {
        path: '/steps/agent/tools/refund',
        message: `the MCP server ${mcp.url} lists no tool "refund"`,
      },
    ])
    const closed = await startMcpServer({})
    await closed.close()
    const unreachable = await pinMcpTools(agentDoc({}, closed.url), {
      egress: createEgressPolicy([closed.host]),
      timeoutMs: 5000,
    })
    expect(unreachable.problems).toEqual([
      {
        path: '/steps/agent/tools/refund',
        message: expect.stringMatching(/cannot list the MCP server's tools: .*fetch failed/),
      },
    ])
    // A host that is no MCP server: its answer's body never reaches the registrant.
    const plain = createServer((_req, res) => res.writeHead(404).end('internal secret page'))
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const host = `127.0.0.1:${(plain.address() as AddressInfo).port}`
    const notMcp = await pinMcpTools(agentDoc({}, `http://${host}/mcp`), {
      egress: createEgressPolicy([host]),
      timeoutMs: 5000,
    })
    plain.close()
    expect(notMcp.problems).toEqual([
      {
        path: '/steps/agent/tools/refund',
        message: expect.stringContaining('the server answered HTTP 404'),
      },
    ])
    expect(JSON.stringify(notMcp.problems)).not.toContain('internal secret')
    mcp.requests.length = 0
    const refused = await pinMcpTools(agentDoc(), { egress: createEgressPolicy([]) })
    expect(refused.problems).toEqual([
      {
        path: '/steps/agent/tools/refund',
        message: expect.stringContaining(
          'the egress policy refuses the MCP server: host "127.0.0.1"',
        ),
      },
    ])
    expect(mcp.requests).toEqual([])
  })

  it('lets an mcp tool leave out description and parameters, and no other tool', async () => {
    expect((await validateSpec(agentDoc())).ok).toBe(true)
    const handlerTool = { call: { kind: 'handler', handler: 'h' } }
    const result = await validateSpec({
      ...agentDoc(),
      steps: { agent: { ...agentDoc().steps.agent, tools: { refund: handlerTool } } },
    })
    expect(result.ok ? [] : result.problems).toEqual([
      { path: '/steps/agent/tools/refund/description', message: 'required' },
      { path: '/steps/agent/tools/refund/parameters', message: 'required' },
    ])
    const bad = await validateSpec(agentDoc({}, 'ftp://tools.example/mcp'))
    expect(bad.ok ? [] : bad.problems).toEqual([
      {
        path: '/steps/agent/tools/refund/call/server',
        message: 'an MCP server is an absolute http or https URL without credentials',
      },
    ])
  })

  it('never compiles an mcp tool that was not pinned', async () => {
    const spec = GraphSpec.parse(agentDoc())
    await expect(compileGraph('g', spec, {})).rejects.toMatchObject({
      name: 'SpecCompileError',
      problems: [{ path: '/steps/agent/tools/refund/call' }],
    })
  })
})

describe('calling a pinned mcp tool', () => {
  it('calls the tool with the arguments, keyed by run, step and call id, and gives the model the result', async () => {
    const spec = await pinned()
    const r = await run(spec, [refundCall, { content: 'Refunded.' }])
    expect(r.stopReason).toBe('completed')
    expect(mcp.calls).toEqual([
      {
        tool: 'refund',
        args: { customer: 'ada', amount: 40 },
        idempotencyKey: 'run-1:agent:call-1',
      },
    ])
    // Only the call carries the key: nothing else of the session may be taken for it.
    const keyed = mcp.requests.filter((q) => q.idempotencyKey !== undefined)
    expect(keyed.map((q) => q.rpc)).toEqual(['tools/call'])
    const toolMessage = model.requests[1]!.find((m) => m.role === 'tool')
    expect(JSON.parse(toolMessage!.content!)).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'refunded 40' }],
    })
  })

  it("gives the model the tool's error result as it is", async () => {
    const spec = await pinned()
    mcp.tools.set('refund', {
      ...refundTool(),
      answer: () => ({ isError: true, content: [{ type: 'text', text: 'card expired' }] }),
    })
    const r = await run(spec, [refundCall, { content: 'Sorry.' }])
    expect(r.stopReason).toBe('completed')
    const toolMessage = model.requests[1]!.find((m) => m.role === 'tool')
    expect(JSON.parse(toolMessage!.content!)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'card expired' }],
    })
  })

  it('refuses a tool the server changed or dropped since the pin, calling nothing', async () => {
    const spec = await pinned()
    mcp.tools.set('refund', { ...refundTool(), input: { customer: z.string(), amount: z.any() } })
    const changed = await run(spec, [refundCall])
    expect(changed.stopReason).toBe('error')
    expect(changed.error).toMatchObject({
      name: 'McpToolChangedError',
      code: 'mcp-tool-changed',
      tool: 'refund',
      server: mcp.url,
    })
    expect(changed.error?.message).toContain(`MCP tool "refund" on ${mcp.url} changed`)
    mcp.tools.clear()
    const dropped = await run(spec, [refundCall])
    expect(dropped.error?.message).toContain(`MCP tool "refund" on ${mcp.url} is no longer listed`)
    expect(mcp.calls).toEqual([])
  })

  it('refuses a call to a tool the server changed before anyone is asked to approve it', async () => {
    const doc = agentDoc()
    doc.steps.agent.permissions = [{ tool: 'refund', permission: 'ask' }]
    const spec = await pinned(doc)
    // As pinned: the call is asked about.
    const asked = await run(spec, [refundCall])
    expect(asked.stopReason).toBe('yielded')
    expect(asked.yield?.reason).toMatchObject({
      kind: 'approvals',
      approvals: [{ callId: 'call-1', details: { tool: 'refund' } }],
    })
    // Changed on the server: refused without asking, the model told why, nothing called.
    mcp.tools.set('refund', { ...refundTool(), input: { customer: z.string(), amount: z.any() } })
    const refused = await run(spec, [refundCall, { content: 'I could not refund.' }])
    expect(refused.stopReason).toBe('completed')
    expect(refused.yield).toBeUndefined()
    expect(mcp.calls).toEqual([])
    const toolMessage = model.requests.at(-1)!.find((m) => m.role === 'tool')
    expect(toolMessage?.content).toContain(`MCP tool "refund" on ${mcp.url} changed`)
    expect((refused.state.agent as { calls: unknown[] }).calls).toEqual([
      expect.objectContaining({ callId: 'call-1', permission: 'ask', outcome: 'invalid' }),
    ])
  })

  it('asks only about the calls of a turn whose tools are as pinned', async () => {
    const doc = agentDoc()
    doc.steps.agent.tools = {
      refund: { call: { kind: 'mcp', server: mcp.url, tool: 'refund' } },
      note: { call: { kind: 'mcp', server: mcp.url, tool: 'note' } },
    } as never
    doc.steps.agent.permissions = [{ tool: '*', permission: 'ask' }]
    const note = () => ({
      description: 'Note something',
      input: { text: z.string() },
      answer: () => ({ content: [{ type: 'text' as const, text: 'noted' }] }),
    })
    mcp.tools.set('note', note())
    const spec = await pinned(doc)
    mcp.tools.set('note', { ...note(), description: 'Note anything at all' })
    const r = await run(spec, [
      {
        calls: [
          ['call-1', 'refund', { customer: 'ada', amount: 40 }],
          ['call-2', 'note', { text: 'hi' }],
        ],
      },
    ])
    expect(r.stopReason).toBe('yielded')
    const reason = r.yield?.reason as { approvals: Array<{ callId: string }> }
    expect(reason.approvals.map((a) => a.callId)).toEqual(['call-1'])
    expect(mcp.calls).toEqual([])
  })

  it('sends nothing to a server the egress policy refuses', async () => {
    const spec = await pinned()
    mcp.requests.length = 0
    const r = await run(spec, [refundCall], [])
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'EgressDeniedError' })
    expect(mcp.requests).toEqual([])
  })

  it('fails the step, naming the tool, when the server cannot be reached', async () => {
    const closed = await startMcpServer({ refund: refundTool() })
    const spec = await pinMcpTools(agentDoc({}, closed.url), {
      egress: createEgressPolicy([closed.host]),
    })
    await closed.close()
    const r = await run(GraphSpec.parse(spec.spec), [refundCall], [closed.host])
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'McpToolError', code: 'mcp-tool' })
    expect(r.error?.message).toContain(`MCP tool "refund" on ${closed.url} failed`)
  })

  it('fails the step when the call outlasts the time it is given', async () => {
    const spec = await pinned()
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    mcp.tools.set('refund', {
      ...refundTool(),
      answer: async () => {
        await held
        return { content: [] }
      },
    })
    const r = await run(spec, [refundCall], [mcp.host], 1000)
    release()
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'McpToolError' })
  })

  it('fails the step rather than read an answer past its size limit', async () => {
    const spec = await pinned()
    const huge = 'x'.repeat(5 * 1_048_576)
    mcp.tools.set('refund', {
      ...refundTool(),
      answer: () => ({ content: [{ type: 'text', text: huge }] }),
    })
    const r = await run(spec, [refundCall], [mcp.host], 10_000)
    expect(r.stopReason).toBe('error')
    expect(r.error).toMatchObject({ name: 'McpToolError' })
    expect(r.error?.message).toContain('larger than')
  })

  it('gives up the call when the run is cancelled while it waits for the server', async () => {
    const spec = await pinned()
    const cancel = new AbortController()
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    mcp.tools.set('refund', {
      ...refundTool(),
      answer: async () => {
        cancel.abort()
        await held
        return { content: [] }
      },
    })
    model.script = [refundCall]
    const { graph } = await compileGraph('g', spec, {
      http: { allow: [mcp.host] },
      llm: { baseUrl: model.baseUrl },
    })
    const r = await graph.run({}, { store: new MemStore(), signal: cancel.signal })
    release()
    expect(r.stopReason).toBe('cancelled')
    expect(mcp.calls).toHaveLength(1)
  })
})
