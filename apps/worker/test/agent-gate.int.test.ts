import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createApprovalLifecycle,
  listApprovals,
  listAudit,
  listRunEvents,
  registerGraphVersion,
  withTenant,
} from '@weave/db'
import { canonicalDigest, createHandlerRegistry, defineHandler } from '@weave/spec'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from './support/test-services.js'
import { startWorkerTestbed, type WorkerTestbed } from './support/worker-testbed.js'

// The write-approval gate on an agent's tool calls, as the worker runs it: a call the rules
// send to a person becomes an approval bound to that exact call, and the call runs only once a
// person approved it, once.

/** A scripted OpenAI-compatible model: the reply of a turn is chosen by the turns so far. */
let model: Server
let modelUrl = ''
let modelCalls = 0
const refunds: number[] = []

const REPLIES = [{ tool_calls: [call('c1', 'refund', { amount: 500 })] }, { content: 'Refunded.' }]
// The script of a conversation whose prompt asks for a quote.
const QUOTE_REPLIES = [{ tool_calls: [call('q1', 'quote', { qty: 3 })] }, { content: 'It is 30.' }]

function call(id: string, name: string, args: object) {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } }
}

let bed: WorkerTestbed

beforeAll(async () => {
  model = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      modelCalls += 1
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        messages: Array<{ role: string; content?: string }>
      }
      const turn = body.messages.filter((m) => m.role === 'assistant').length
      const quoting = body.messages.some((m) => m.role === 'user' && m.content?.startsWith('Quote'))
      const reply = (quoting ? QUOTE_REPLIES : REPLIES)[turn] ?? { content: 'out of script' }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          choices: [{ index: 0, message: { role: 'assistant', content: null, ...reply } }],
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        }),
      )
    })
  })
  model.listen(0, '127.0.0.1')
  await once(model, 'listening')
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`
  bed = await startWorkerTestbed('agent-gate', {
    llm: { baseUrl: modelUrl },
    http: { allow: ['127.0.0.1'] },
    handlers: createHandlerRegistry([
      defineHandler('payments.refund', (args) => {
        refunds.push(Number(args.amount))
        return { refunded: args.amount }
      }),
    ]),
  })
})

afterAll(async () => {
  await bed?.close()
  model?.close()
})

/** The audit events of the tool calls an agent of run `id` made that change the world. */
async function executedCalls(id: string) {
  const page = await withTenant(bed.database, bed.tenant, (tx) =>
    listAudit(tx, { action: 'agent.tool.executed', limit: 100 }),
  )
  return page.items.filter((e) => e.target.id === id).map((e) => e.details)
}

const agent = {
  entry: 'support',
  steps: {
    support: {
      kind: 'agent',
      model: 'scripted',
      prompt: 'Help {{ customer }}',
      tools: {
        refund: {
          description: 'Refund an amount',
          parameters: {
            type: 'object',
            required: ['amount'],
            properties: { amount: { type: 'number' } },
            additionalProperties: false,
          },
          call: { kind: 'handler', handler: 'payments.refund' },
        },
      },
      permissions: [
        { tool: 'refund', when: 'amount <= 100', permission: 'allow' },
        {
          tool: 'refund',
          permission: 'ask',
          approval: { title: 'Refund {{ amount }}?', separationOfDuties: true },
        },
      ],
    },
  },
}

describe('an agent step on a worker', () => {
  it('opens an approval for the exact call, runs it once approved, and finishes', async () => {
    const id = await bed.start('support-agent', agent, { customer: 'Ada' })
    await until(
      () => bed.runOf(id),
      (r) => r?.status === 'waiting',
      'the agent to ask',
    )
    expect(refunds).toEqual([])
    const [approval] = (
      await withTenant(bed.database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    expect(approval).toMatchObject({
      status: 'pending',
      step: 'support',
      title: 'Refund 500?',
      details: expect.objectContaining({ tool: 'refund', arguments: { amount: 500 } }),
      separationOfDuties: true,
    })

    const lifecycle = createApprovalLifecycle({ database: bed.database, jobs: bed.worker.queues })
    const decide = (subject: string, materialHash = approval!.materialHash) =>
      lifecycle.decide(bed.tenant, {
        approvalId: approval!.id,
        subject,
        subjectScopes: ['approvals:decide'],
        decision: 'approve',
        materialHash,
        context: { requestId: 'test', ip: '127.0.0.1' },
      })
    // A decision made on another call than the one shown now is refused.
    await expect(decide('bob', canonicalDigest({ amount: 50 }))).rejects.toMatchObject({
      code: 'material-mismatch',
    })
    // The run's starter may not approve its own agent's call.
    await expect(decide('starter')).rejects.toMatchObject({ code: 'separation-of-duties' })
    expect((await decide('bob')).settled?.status).toBe('approved')

    const done = await until(
      () => bed.runOf(id),
      (r) => r?.status === 'completed' || r?.status === 'failed',
      'the agent to finish',
    )
    expect(done).toMatchObject({ status: 'completed' })
    expect(refunds).toEqual([500])
    expect(modelCalls).toBe(2)
    // Each unit's events are on the record with its checkpoint, before its step.completed.
    const events = await withTenant(bed.database, bed.tenant, (tx) => listRunEvents(tx, id))
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'agent.message',
      'tool.requested',
      'step.completed',
      'step.completed',
      'approval.requested',
      'run.waiting',
      'approval.decided',
      'run.resumed',
      'tool.decided',
      'tool.completed',
      'step.completed',
      'agent.message',
      'step.completed',
      'run.completed',
    ])
    expect(events.find((e) => e.type === 'tool.decided')?.data).toEqual({
      step: 'support',
      callId: 'c1',
      tool: 'refund',
      approvalId: approval!.id,
      status: 'approved',
    })
    // The executed call is on the audit record once, with a digest of what it ran with.
    expect(await executedCalls(id)).toEqual([
      {
        step: 'support',
        callId: 'c1',
        tool: 'refund',
        argumentsDigest: canonicalDigest({ amount: 500 }),
        approvalId: approval!.id,
        edited: false,
      },
    ])
  })

  it('runs the call as an approver changed it, refusing a change that breaks the tool schema', async () => {
    const before = refunds.length
    const id = await bed.start('support-agent-edit', agent, { customer: 'Bo' })
    await until(
      () => bed.runOf(id),
      (r) => r?.status === 'waiting',
      'the agent to ask',
    )
    const [approval] = (
      await withTenant(bed.database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
    ).items
    const lifecycle = createApprovalLifecycle({ database: bed.database, jobs: bed.worker.queues })
    const decide = (input: object) =>
      lifecycle.decide(bed.tenant, {
        approvalId: approval!.id,
        subject: 'bob',
        subjectScopes: ['approvals:decide'],
        decision: 'approve',
        materialHash: approval!.materialHash,
        input: input as never,
        context: { requestId: 'test', ip: '127.0.0.1' },
      })
    await expect(decide({ arguments: { amount: 'lots' } })).rejects.toMatchObject({
      code: 'decision-input-invalid',
    })
    expect((await decide({ arguments: { amount: 300 } })).settled?.status).toBe('approved')
    await until(
      () => bed.runOf(id),
      (r) => r?.status === 'completed',
      'the agent to finish',
    )
    expect(refunds.slice(before)).toEqual([300])
    expect(await executedCalls(id)).toEqual([
      expect.objectContaining({ argumentsDigest: canonicalDigest({ amount: 300 }), edited: true }),
    ])
  })

  it('runs a registered graph as a tool, its steps on the record under the call', async () => {
    await withTenant(bed.database, bed.tenant, (tx) =>
      registerGraphVersion(tx, {
        name: 'pricing',
        spec: { entry: 'total', steps: { total: { kind: 'set', values: { total: 'qty * 10' } } } },
        createdBy: 'author',
      }),
    )
    const quoting = {
      entry: 'support',
      steps: {
        support: {
          kind: 'agent',
          model: 'scripted',
          prompt: 'Quote for {{ customer }}',
          tools: {
            quote: {
              description: 'Price an order',
              parameters: { type: 'object', properties: { qty: { type: 'integer' } } },
              readOnly: true,
              call: { kind: 'subgraph', graph: 'pricing' },
            },
          },
        },
      },
    }
    const id = await bed.start('quoting-agent', quoting, { customer: 'Cy' })
    const done = await until(
      () => bed.runOf(id),
      (r) => r?.status === 'completed' || r?.status === 'failed',
      'the agent to finish',
    )
    expect(done).toMatchObject({ status: 'completed' })
    const events = await withTenant(bed.database, bed.tenant, (tx) => listRunEvents(tx, id))
    expect(
      events
        .filter((e) => e.type === 'step.completed')
        .map((e) => (e.data as { step: string }).step),
    ).toEqual(['support', 'support:q1/total', 'support', 'support'])
    // A read-only tool is not audited as a change to the world.
    expect(await executedCalls(id)).toEqual([])
  })
})
