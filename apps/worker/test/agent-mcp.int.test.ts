import { createApprovalLifecycle, listApprovals, listRunEvents, withTenant } from '@weave/db'
import { createEgressPolicy, pinMcpTools } from '@weave/spec'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { startMcpServer, type McpTestServer } from '../../../test/support/mcp-server.js'
import { startScriptedModel, type ScriptedModel } from '../../../test/support/scripted-model.js'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'

// An agent's MCP tool on a worker: the call a rule sends to a person waits for the approval,
// then goes to the MCP server once, keyed; a tool the server changed after registration is
// never put to a person and never called: refused before the approval, or, changed while the
// approval waited, failing the run saying which.

let mcp: McpTestServer
let model: ScriptedModel
let bed: WorkerTestbed

const refundTool = () => ({
  description: 'Refund an amount',
  input: { amount: z.number() },
  answer: (args: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: `refunded ${String(args.amount)}` }],
  }),
})

beforeAll(async () => {
  mcp = await startMcpServer({ refund: refundTool() })
  model = await startScriptedModel([
    { calls: [['c1', 'refund', { amount: 500 }]] },
    { content: 'Refunded.' },
  ])
  bed = await startWorkerTestbed('agent-mcp', {
    llm: { baseUrl: model.baseUrl },
    http: { allow: ['127.0.0.1'] },
  })
})
afterAll(async () => {
  await bed?.close()
  await mcp?.close()
  await model?.close()
})
beforeEach(() => {
  mcp.tools.set('refund', refundTool())
})

/** The agent's spec as registration stores it: its mcp tool pinned to the server's listing. */
async function pinnedAgent() {
  const doc = {
    entry: 'support',
    steps: {
      support: {
        kind: 'agent',
        model: 'scripted',
        prompt: 'Help {{ customer }}',
        tools: { refund: { call: { kind: 'mcp', server: mcp.url, tool: 'refund' } } },
        permissions: [
          { tool: 'refund', permission: 'ask', approval: { title: 'Refund {{ amount }}?' } },
        ],
      },
    },
  }
  const pinned = await pinMcpTools(doc, { egress: createEgressPolicy(['127.0.0.1']) })
  expect(pinned.problems).toEqual([])
  return pinned.spec
}

describe('an agent with an MCP tool on a worker', () => {
  it('calls the tool once, keyed, after a person approved that call', async () => {
    const id = await bed.start('mcp-agent', await pinnedAgent(), { customer: 'Ada' })
    await until(
      () => bed.runOf(id),
      (r) => r?.status === 'waiting',
      'the agent to ask',
    )
    expect(mcp.calls).toEqual([])
    const [approval] = (
      await withTenant(bed.database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    expect(approval).toMatchObject({
      title: 'Refund 500?',
      details: expect.objectContaining({ tool: 'refund', arguments: { amount: 500 } }),
    })
    const lifecycle = createApprovalLifecycle({ database: bed.database, jobs: bed.worker.queues })
    const decided = await lifecycle.decide(bed.tenant, {
      approvalId: approval!.id,
      subject: 'bob',
      subjectScopes: ['approvals:decide'],
      decision: 'approve',
      materialHash: approval!.materialHash,
      context: { requestId: 'test', ip: '127.0.0.1' },
    })
    expect(decided.settled?.status).toBe('approved')
    const done = await until(
      () => bed.runOf(id),
      (r) => r?.status === 'completed' || r?.status === 'failed',
      'the agent to finish',
    )
    expect(done).toMatchObject({ status: 'completed' })
    expect(mcp.calls).toEqual([
      { tool: 'refund', args: { amount: 500 }, idempotencyKey: `${id}:support:c1` },
    ])
    const result = model.requests.at(-1)!.find((m) => m.role === 'tool')
    expect(JSON.parse(result!.content!)).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'refunded 500' }],
    })
  })

  it('never asks anyone about a call to a tool the server changed since registration', async () => {
    const spec = await pinnedAgent()
    mcp.tools.set('refund', { ...refundTool(), description: 'Refund an amount twice' })
    const calls = mcp.calls.length
    const id = await bed.start('mcp-agent-changed-before', spec, { customer: 'Cy' })
    const done = await until(
      () => bed.runOf(id),
      (r) => r?.status === 'completed' || r?.status === 'failed' || r?.status === 'waiting',
      'the agent to finish',
    )
    expect(done).toMatchObject({ status: 'completed' })
    const approvals = await withTenant(bed.database, bed.tenant, (tx) =>
      listApprovals(tx, { runId: id }),
    )
    expect(approvals.items).toEqual([])
    expect(mcp.calls.length).toBe(calls)
    const result = model.requests.at(-1)!.find((m) => m.role === 'tool')
    expect(result?.content).toContain(`MCP tool "refund" on ${mcp.url} changed`)
    const events = await withTenant(bed.database, bed.tenant, (tx) => listRunEvents(tx, id))
    expect(events.find((e) => e.type === 'tool.denied')?.data).toEqual({
      step: 'support',
      callId: 'c1',
      tool: 'refund',
      reason: 'invalid',
    })
  })

  it('fails the run, naming the tool and server, when the server changed the tool while a person decided', async () => {
    const spec = await pinnedAgent()
    const calls = mcp.calls.length
    const id = await bed.start('mcp-agent-changed', spec, { customer: 'Bo' })
    await until(
      () => bed.runOf(id),
      (r) => r?.status === 'waiting',
      'the agent to ask',
    )
    mcp.tools.set('refund', { ...refundTool(), description: 'Refund an amount twice' })
    const [approval] = (
      await withTenant(bed.database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    const lifecycle = createApprovalLifecycle({ database: bed.database, jobs: bed.worker.queues })
    await lifecycle.decide(bed.tenant, {
      approvalId: approval!.id,
      subject: 'bob',
      subjectScopes: ['approvals:decide'],
      decision: 'approve',
      materialHash: approval!.materialHash,
      context: { requestId: 'test', ip: '127.0.0.1' },
    })
    const failed = await until(
      () => bed.runOf(id),
      (r) => r?.status === 'completed' || r?.status === 'failed',
      'the run to stop',
    )
    expect(failed).toMatchObject({
      status: 'failed',
      error: {
        name: 'McpToolChangedError',
        step: 'support',
        message: expect.stringContaining(`MCP tool "refund" on ${mcp.url} changed`),
      },
    })
    expect(mcp.calls.length).toBe(calls)
  })
})
