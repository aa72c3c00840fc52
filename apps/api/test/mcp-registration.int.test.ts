import { GraphRegistry } from '@weave/db'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { startMcpServer, type McpTestServer } from '../../../test/support/mcp-server.js'
import { startScriptedModel, type ScriptedModel } from '../../../test/support/scripted-model.js'
import { GraphVersionView, RegisteredGraph } from '../src/schemas/graphs.js'
import { createApiServices } from '../src/services/api-services.js'
import { randomTenant } from './support/database.js'
import {
  buildTestApp,
  callerFor,
  createHarness,
  expectJson,
  expectProblem,
  type Call,
  type Harness,
} from './support/harness.js'

// Registering a graph whose agent calls MCP tools pins each tool to what its server lists then;
// a server that cannot be listed, or lacks the tool, makes the registration fail.

let h: Harness
let mcp: McpTestServer
let model: ScriptedModel
let call: (c: Call) => ReturnType<Harness['call']>
let closeApp: () => Promise<void>
let token: string
const tenant = randomTenant()

const refundTool = () => ({
  description: 'Refund an amount',
  input: { amount: z.number() },
})

beforeAll(async () => {
  h = await createHarness('api_mcp_registration')
  mcp = await startMcpServer({ refund: refundTool() })
  model = await startScriptedModel([{ calls: [['call-1', 'refund', { amount: 5 }]] }])
  // The API as configured with WEAVE_HTTP_ALLOW=127.0.0.1: local MCP servers may be listed.
  const app = await buildTestApp(
    createApiServices({
      database: h.database,
      jobs: h.queues,
      registry: h.registry,
      httpAllow: ['127.0.0.1'],
    }),
  )
  call = callerFor(app)
  closeApp = () => app.close()
  token = await h.token(tenant, 'alice')
})
afterAll(async () => {
  await closeApp?.()
  await mcp?.close()
  await model?.close()
  await h?.close()
})
beforeEach(() => {
  mcp.tools.set('refund', refundTool())
})

const agentSpec = (server: string) => ({
  entry: 'agent',
  steps: {
    agent: {
      kind: 'agent',
      model: 'scripted',
      prompt: 'Help',
      tools: { refund: { call: { kind: 'mcp', server, tool: 'refund' } } },
      permissions: [{ tool: 'refund', permission: 'allow' }],
    },
  },
})

const register = (name: string, spec: unknown) =>
  call({ method: 'POST', url: '/v1/graphs', token, body: { name, spec } })

const storedTool = async (name: string, version: number) => {
  const view = expectJson(
    await call({ method: 'GET', url: `/v1/graphs/${name}/versions/${version}`, token }),
    200,
    GraphVersionView,
  )
  return (view.spec as { steps: { agent: { tools: { refund: Record<string, unknown> } } } }).steps
    .agent.tools.refund
}

describe('registering a graph with mcp tools', () => {
  it("stores each tool pinned to the server's listing, and adds no version while it stays", async () => {
    const first = expectJson(await register('refunds', agentSpec(mcp.url)), 201, RegisteredGraph)
    expect(await storedTool('refunds', 1)).toEqual({
      description: 'Refund an amount',
      parameters: {
        type: 'object',
        properties: { amount: { type: 'number' } },
        required: ['amount'],
      },
      call: {
        kind: 'mcp',
        server: mcp.url,
        tool: 'refund',
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    })
    const again = expectJson(await register('refunds', agentSpec(mcp.url)), 200, RegisteredGraph)
    expect(again).toMatchObject({ version: 1, digest: first.digest })

    // The server changed the tool: the same document now registers a version with the new pin.
    mcp.tools.set('refund', { ...refundTool(), description: 'Refund an amount, and notify' })
    const changed = expectJson(await register('refunds', agentSpec(mcp.url)), 201, RegisteredGraph)
    expect(changed.version).toBe(2)
    expect(await storedTool('refunds', 2)).toMatchObject({
      description: 'Refund an amount, and notify',
    })
  })

  it('fails a run of a version whose tool the server changed since, naming the tool', async () => {
    expectJson(await register('pinned', agentSpec(mcp.url)), 201, RegisteredGraph)
    mcp.tools.set('refund', { ...refundTool(), input: { amount: z.number().max(100) } })
    // The version compiled as a worker compiles it, with egress allowed to the server.
    const registry = new GraphRegistry(h.database, {
      http: { allow: [mcp.host] },
      llm: { baseUrl: model.baseUrl },
    })
    const { graph } = await registry.get(tenant, 'pinned', 1)
    const calls = mcp.calls.length
    const result = await graph.run({}, {})
    expect(result.stopReason).toBe('error')
    expect(result.error).toMatchObject({ name: 'McpToolChangedError', tool: 'refund' })
    expect(result.error?.message).toContain(`MCP tool "refund" on ${mcp.url} changed`)
    expect(mcp.calls.length).toBe(calls)
  })

  it('answers 422 naming the tool when its server cannot be reached or lacks it', async () => {
    const gone = await startMcpServer({})
    await gone.close()
    const unreachable = expectProblem(
      await register('unreachable', agentSpec(gone.url)),
      422,
      'invalid-graph-spec',
    )
    expect(unreachable.errors).toEqual([
      {
        path: '/body/spec/steps/agent/tools/refund',
        message: expect.stringContaining(`${gone.url}: cannot list the MCP server's tools`),
      },
    ])
    mcp.tools.delete('refund')
    const missing = expectProblem(
      await register('missing', agentSpec(mcp.url)),
      422,
      'invalid-graph-spec',
    )
    expect(missing.errors).toEqual([
      {
        path: '/body/spec/steps/agent/tools/refund',
        message: `the MCP server ${mcp.url} lists no tool "refund"`,
      },
    ])
    expectProblem(await call({ method: 'GET', url: '/v1/graphs/missing', token }), 404)
  })

  it('refuses a server the egress policy does not allow, without calling it', async () => {
    const requests = mcp.requests.length
    // The harness's API has no allow list: public hosts only, so not 127.0.0.1.
    const refused = expectProblem(
      await h.call({
        method: 'POST',
        url: '/v1/graphs',
        token,
        body: { name: 'private', spec: agentSpec(mcp.url) },
      }),
      422,
      'invalid-graph-spec',
    )
    expect(refused.errors).toEqual([
      {
        path: '/body/spec/steps/agent/tools/refund',
        message: expect.stringContaining('non-public address 127.0.0.1'),
      },
    ])
    expect(mcp.requests.length).toBe(requests)
  })
})
