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
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reconcileOnce } from '../src/index.js'
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
// The script of a conversation whose prompt asks for two refunds: both calls in one turn.
const pairReplies = (a: number, b: number) => [
  { tool_calls: [call('p1', 'refund', { amount: a }), call('p2', 'refund', { amount: b })] },
  { content: 'Both settled.' },
]
/** The requests of two-refund conversations, by the customer their prompt names. */
const pairRequests = new Map<string, Array<Array<{ role: string; content?: string }>>>()

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
      const prompt = body.messages.find((m) => m.role === 'user')?.content ?? ''
      const quoting = prompt.startsWith('Quote')
      const pair = /^Refund (\d+) and (\d+) for (.+)$/.exec(prompt)
      if (pair) pairRequests.set(pair[3]!, [...(pairRequests.get(pair[3]!) ?? []), body.messages])
      const script = pair
        ? pairReplies(Number(pair[1]), Number(pair[2]))
        : quoting
          ? QUOTE_REPLIES
          : REPLIES
      const reply = script[turn] ?? { content: 'out of script' }
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

  describe('two calls in one turn that need a person', () => {
    const pairAgent = {
      ...agent,
      steps: { support: { ...agent.steps.support, prompt: '{{ ask }}' } },
    }
    const context = { requestId: 'test', ip: '127.0.0.1' }
    /** A lifecycle whose resume jobs are recorded before they are queued. */
    function recordingLifecycle() {
      const resumes: unknown[] = []
      const lifecycle = createApprovalLifecycle({
        database: bed.database,
        jobs: {
          enqueue: (kind, payload, options) => {
            if (kind === 'resume') resumes.push(payload)
            return bed.worker.queues.enqueue(kind, payload, options)
          },
        },
      })
      return { lifecycle, resumes }
    }
    async function startPair(customer: string, a: number, b: number) {
      const id = await bed.start(`pair-${customer}`, pairAgent, {
        ask: `Refund ${a} and ${b} for ${customer}`,
      })
      const waiting = await until(
        () => bed.runOf(id),
        (r) => r?.status === 'waiting',
        'the agent to ask',
      )
      const approvals = (
        await withTenant(bed.database, bed.tenant, (tx) => listApprovals(tx, { runId: id }))
      ).items
      const byCall = (callId: string) =>
        approvals.find((x) => (x.details as { callId?: string }).callId === callId)!
      return { id, waiting, approvals, p1: byCall('p1'), p2: byCall('p2') }
    }
    const resumedEvents = async (id: string) =>
      (await withTenant(bed.database, bed.tenant, (tx) => listRunEvents(tx, id))).filter(
        (e) => e.type === 'run.resumed',
      )

    it('opens both approvals at once, each bound to its call, and goes on once both are decided', async () => {
      const before = refunds.length
      const { id, waiting, approvals, p1, p2 } = await startPair('Dee', 600, 700)
      expect(approvals).toHaveLength(2)
      expect(approvals.map((x) => x.status)).toEqual(['pending', 'pending'])
      expect(p1).toMatchObject({
        title: 'Refund 600?',
        details: expect.objectContaining({ arguments: { amount: 600 } }),
      })
      expect(p2).toMatchObject({
        title: 'Refund 700?',
        details: expect.objectContaining({ arguments: { amount: 700 } }),
      })
      expect(p1.materialHash).not.toBe(p2.materialHash)
      expect(waiting?.waitingOn).toMatchObject({
        kind: 'approval',
        approvalIds: [p1.id, p2.id],
      })
      expect(refunds.slice(before)).toEqual([])

      const { lifecycle, resumes } = recordingLifecycle()
      const decide = (approval: typeof p1, subject: string, decision: 'approve' | 'reject') =>
        lifecycle.decide(bed.tenant, {
          approvalId: approval.id,
          subject,
          subjectScopes: ['approvals:decide'],
          decision,
          materialHash: approval.materialHash,
          context,
        })
      // One approval's material is not the other's.
      await expect(
        lifecycle.decide(bed.tenant, {
          approvalId: p2.id,
          subject: 'carol',
          subjectScopes: ['approvals:decide'],
          decision: 'reject',
          materialHash: p1.materialHash,
          context,
        }),
      ).rejects.toMatchObject({ code: 'material-mismatch' })
      await expect(decide(p2, 'starter', 'reject')).rejects.toMatchObject({
        code: 'separation-of-duties',
      })
      // The second call is refused first, by one approver: the run is not resumed for it.
      expect((await decide(p2, 'carol', 'reject')).settled?.status).toBe('rejected')
      expect(resumes).toEqual([])
      expect((await bed.runOf(id))?.status).toBe('waiting')
      // The first is approved by another: that decision resumes the run.
      expect((await decide(p1, 'bob', 'approve')).settled?.status).toBe('approved')
      expect(resumes).toEqual([expect.objectContaining({ runId: id, approvalId: p1.id })])

      const done = await until(
        () => bed.runOf(id),
        (r) => r?.status === 'completed' || r?.status === 'failed',
        'the agent to finish',
      )
      expect(done).toMatchObject({ status: 'completed' })
      expect(refunds.slice(before)).toEqual([600])
      expect(await resumedEvents(id)).toHaveLength(1)
      // The model was asked once more, with both results.
      const sent = pairRequests.get('Dee')!
      expect(sent).toHaveLength(2)
      expect(
        sent[1]!.slice(-2).map((m) => [(m as { tool_call_id?: string }).tool_call_id, m.content]),
      ).toEqual([
        ['p1', JSON.stringify({ refunded: 600 })],
        ['p2', 'A person refused this call; it was not run.'],
      ])
      const events = await withTenant(bed.database, bed.tenant, (tx) => listRunEvents(tx, id))
      expect(
        events
          .filter((e) => e.type === 'tool.decided')
          .map((e) => e.data as { callId: string; approvalId: string; status: string })
          .map((d) => [d.callId, d.approvalId, d.status]),
      ).toEqual([
        ['p1', p1.id, 'approved'],
        ['p2', p2.id, 'rejected'],
      ])
      expect(await executedCalls(id)).toEqual([
        expect.objectContaining({ callId: 'p1', approvalId: p1.id }),
      ])
      // One audit event per decision.
      const audit = await withTenant(bed.database, bed.tenant, (tx) =>
        listAudit(tx, { action: 'approval.decided', limit: 100 }),
      )
      expect(
        audit.items
          .filter((e) => e.target.id === p1.id || e.target.id === p2.id)
          .map((e) => [e.target.id, e.actor])
          .sort(),
      ).toEqual(
        [
          [p1.id, 'bob'],
          [p2.id, 'carol'],
        ].sort(),
      )
    })

    it('treats a call whose approval expired as refused, and resumes once the other is decided', async () => {
      const before = refunds.length
      const { id, p1, p2 } = await startPair('Fay', 610, 620)
      const { lifecycle, resumes } = recordingLifecycle()
      // The first call's approval times out: the run waits on for the second.
      expect(await lifecycle.expire(bed.tenant, p1.id)).toEqual({ expired: true, runId: id })
      expect(resumes).toEqual([])
      expect((await bed.runOf(id))?.status).toBe('waiting')
      await lifecycle.decide(bed.tenant, {
        approvalId: p2.id,
        subject: 'bob',
        subjectScopes: ['approvals:decide'],
        decision: 'approve',
        materialHash: p2.materialHash,
        context,
      })
      expect(resumes).toHaveLength(1)
      await until(
        () => bed.runOf(id),
        (r) => r?.status === 'completed' || r?.status === 'failed',
        'the agent to finish',
      )
      expect(refunds.slice(before)).toEqual([620])
      const sent = pairRequests.get('Fay')!
      expect(
        sent[1]!.slice(-2).map((m) => [(m as { tool_call_id?: string }).tool_call_id, m.content]),
      ).toEqual([
        ['p1', 'No person approved this call before its approval expired; it was not run.'],
        ['p2', JSON.stringify({ refunded: 620 })],
      ])
    })

    it('is resumed by the reconciler only once the last call is decided, when its job was lost', async () => {
      const before = refunds.length
      const { id, p1, p2 } = await startPair('Gus', 630, 640)
      // Decisions whose resume jobs are lost on the way to the queue.
      const lossy = createApprovalLifecycle({
        database: bed.database,
        jobs: { enqueue: () => Promise.resolve(true) },
      })
      const reconcile = () =>
        reconcileOnce(
          {
            database: bed.database,
            queues: bed.worker.queues,
            lifecycle: lossy,
            log: pino({ level: 'silent' }),
            quietMs: 0,
          },
          new Date(Date.now() + 1_000),
        )
      const decide = (approval: typeof p1, subject: string, decision: 'approve' | 'reject') =>
        lossy.decide(bed.tenant, {
          approvalId: approval.id,
          subject,
          subjectScopes: ['approvals:decide'],
          decision,
          materialHash: approval.materialHash,
          context,
        })
      await decide(p1, 'bob', 'approve')
      // A settled call whose sibling is pending is no lost resume.
      expect((await reconcile()).resumed).toBe(0)
      expect((await bed.runOf(id))?.status).toBe('waiting')
      await decide(p2, 'carol', 'reject')
      expect((await reconcile()).resumed).toBe(1)
      await until(
        () => bed.runOf(id),
        (r) => r?.status === 'completed' || r?.status === 'failed',
        'the agent to finish',
      )
      expect(refunds.slice(before)).toEqual([630])
      expect(await resumedEvents(id)).toHaveLength(1)
    })

    it('resumes the run once when both calls are decided at the same instant', async () => {
      const before = refunds.length
      const { id, p1, p2 } = await startPair('Eve', 800, 900)
      const { lifecycle, resumes } = recordingLifecycle()
      const approve = (approval: typeof p1, subject: string) =>
        lifecycle.decide(bed.tenant, {
          approvalId: approval.id,
          subject,
          subjectScopes: ['approvals:decide'],
          decision: 'approve',
          materialHash: approval.materialHash,
          context,
        })
      const settled = await Promise.all([approve(p1, 'bob'), approve(p2, 'carol')])
      expect(settled.map((r) => r.settled?.status)).toEqual(['approved', 'approved'])
      expect(resumes).toHaveLength(1)
      const done = await until(
        () => bed.runOf(id),
        (r) => r?.status === 'completed' || r?.status === 'failed',
        'the agent to finish',
      )
      expect(done).toMatchObject({ status: 'completed' })
      expect(refunds.slice(before)).toEqual([800, 900])
      expect(await resumedEvents(id)).toHaveLength(1)
      expect(pairRequests.get('Eve')).toHaveLength(2)
      expect((await executedCalls(id)).map((d) => (d as { callId: string }).callId)).toEqual([
        'p2',
        'p1',
      ])
    })
  })
})
