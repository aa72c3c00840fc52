import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemStore, type State } from '@weave/kernel'
import {
  compileGraph,
  createHandlerRegistry,
  defineHandler,
  approvalMaterialHash,
  GraphSpec,
  SpecCompileError,
} from '@weave/spec'
import { exampleSpec } from './fixtures/example-spec.js'
import { sendJson, startLocalServer, type LocalServer } from './support/local-server.js'
import { createYieldHost } from './support/yield-host.js'

let server: LocalServer
beforeAll(async () => {
  server = await startLocalServer((req, res) => sendJson(res, 201, { refundId: 'r-1' }))
})
afterAll(() => server.close())

async function compileExample() {
  const host = createYieldHost()
  const notified: string[] = []
  const handlers = createHandlerRegistry([
    defineHandler('crm.notify', (state) => {
      notified.push(String(state.customer))
      return { notified: true }
    }),
  ])
  const spec = GraphSpec.parse(exampleSpec(`${server.origin}/refunds`))
  const compiled = await compileGraph('refunds', spec, {
    handlers,
    http: { allow: ['127.0.0.1'] },
    approvals: host.approvals,
  })
  const store = new MemStore()
  return {
    ...compiled,
    host,
    suspensions: host.reasons,
    notified,
    run: async (input: State) => host.record(await compiled.graph.run(input, { store })),
    resume: async (runId: string, input: State = {}) =>
      host.record(await compiled.graph.resume(runId, input, { store })),
    history: (runId: string) => compiled.graph.history(runId, { store }),
  }
}

const decision = (status: string) => ({
  status,
  approvalId: 'a-1',
  decisions: [{ by: 'alice', decision: status, comment: null, at: '2030-01-01T00:00:00Z' }],
})

describe('compileGraph: the GRAPH-SPEC example', () => {
  it('yields at the approval with the rendered title and its rules', async () => {
    const g = await compileExample()
    const r = await g.run({ amount: 150, customer: 'Ada' })
    expect(r.stopReason).toBe('yielded')
    expect(r.lastStep).toBe('review')
    expect(r.state.risk).toBe('high')
    expect(g.suspensions).toEqual([
      {
        kind: 'approval',
        runId: r.runId,
        step: 'review',
        seq: 2,
        title: 'Refund 150 to Ada?',
        details: null,
        materialHash: approvalMaterialHash('Refund 150 to Ada?', null),
        approvers: null,
        required: 1,
        separationOfDuties: true,
        timeoutMs: 2 * 86_400_000,
        onTimeout: 'expire',
        saveAs: 'review',
        inputSchema: null,
      },
    ])
  })

  it('refunds and notifies on the approve path', async () => {
    const g = await compileExample()
    const before = server.received.length
    const r = await g.run({ amount: 150, customer: 'Ada' })
    g.host.settle(r.runId, 'review', decision('approved'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(done.state.refundResult).toMatchObject({ status: 201, body: { refundId: 'r-1' } })
    expect(done.state.review).toEqual(decision('approved'))
    expect(done.state.notified).toBe(true)
    expect(g.notified).toEqual(['Ada'])
    const sent = server.received.slice(before)
    expect(sent).toHaveLength(1)
    expect(JSON.parse(sent[0]!.body)).toEqual({ customer: 'Ada', amount: 150 })
    expect(sent[0]!.headers['idempotency-key']).toBe(`${r.runId}:refund:4`)
    expect((await g.history(r.runId)).map((c) => c.lastStep)).toEqual([
      'classify',
      'review',
      'review',
      'refund',
      'tell_customer',
    ])
  })

  it('asks the host about exactly the material it showed', async () => {
    const g = await compileExample()
    const r = await g.run({ amount: 150, customer: 'Ada' })
    await g.resume(r.runId)
    expect(g.host.asked).toEqual([approvalMaterialHash('Refund 150 to Ada?', null)])
  })

  it('skips the refund on the reject path', async () => {
    const g = await compileExample()
    const before = server.received.length
    const r = await g.run({ amount: 500, customer: 'Bob' })
    g.host.settle(r.runId, 'review', decision('rejected'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
    expect(done.state.refundResult).toBeUndefined()
    expect(g.notified).toEqual(['Bob'])
    expect(server.received.length).toBe(before)
  })

  it('refunds small amounts without an approval', async () => {
    const g = await compileExample()
    const r = await g.run({ amount: 20, customer: 'Cy' })
    expect(r.stopReason).toBe('completed')
    expect(g.suspensions).toEqual([])
    expect(r.state.refundResult).toMatchObject({ status: 201 })
  })

  it('yields again when resumed without a settled decision, whatever the input says', async () => {
    const g = await compileExample()
    const r = await g.run({ amount: 150, customer: 'Ada' })
    const again = await g.resume(r.runId, { review: decision('approved') })
    expect(again.stopReason).toBe('yielded')
    expect(g.suspensions.map((s) => [s.step, s.seq])).toEqual([
      ['review', 2],
      ['review', 3],
    ])
    g.host.settle(r.runId, 'review', decision('approved'))
    const done = await g.resume(r.runId)
    expect(done.stopReason).toBe('completed')
  })

  it('builds the topology from the spec, END as a null target', async () => {
    const { topology } = await compileExample()
    expect(topology.nodes).toEqual([
      { id: 'classify', kind: 'set' },
      { id: 'review', kind: 'approval' },
      { id: 'refund', kind: 'http' },
      { id: 'tell_customer', kind: 'handler' },
    ])
    expect(topology.edges).toEqual([
      { from: 'classify', to: 'review', label: 'high' },
      { from: 'classify', to: 'refund', label: 'default' },
      { from: 'review', to: 'refund', label: "review.status = 'approved'" },
      { from: 'review', to: 'tell_customer', label: 'else' },
      { from: 'refund', to: 'tell_customer' },
      { from: 'tell_customer', to: null },
    ])
  })
})

describe('compileGraph: options and routing', () => {
  it('maps merge policies, limits and history to the kernel', async () => {
    const spec = GraphSpec.parse({
      entry: 'add',
      merge: { log: 'append', total: 'sum', seen: 'mergeObject' },
      limits: { maxIterations: 3 },
      steps: {
        add: {
          kind: 'set',
          values: { log: '"tick"', total: '2', seen: '{ "k" & $string(total): true }' },
          next: 'add',
        },
      },
    })
    const { graph } = await compileGraph('loop', spec)
    const store = new MemStore()
    const r = await graph.run({ total: 1, log: [] }, { store })
    expect(r.stopReason).toBe('max_iter')
    expect(r.state.log).toEqual(['tick', 'tick', 'tick'])
    expect(r.state.total).toBe(7)
    expect(r.state.seen).toEqual({ k1: true, k3: true, k5: true })
    expect(await graph.history(r.runId, { store })).toHaveLength(3)
  })

  it('routes a branch on numbers and booleans, with null meaning the end', async () => {
    const spec = GraphSpec.parse({
      entry: 'pick',
      steps: {
        pick: {
          kind: 'set',
          values: {},
          next: { branch: 'n > 1', routes: { true: 'big', false: null } },
        },
        big: { kind: 'set', values: { size: '"big"' } },
      },
    })
    const { graph } = await compileGraph('branch', spec)
    expect((await graph.run({ n: 5 })).state.size).toBe('big')
    const small = await graph.run({ n: 0 })
    expect(small.stopReason).toBe('completed')
    expect(small.lastStep).toBe('pick')
  })

  it('takes the first truthy when clause, with JSONata truthiness, else the else', async () => {
    const spec = GraphSpec.parse({
      entry: 'pick',
      steps: {
        pick: {
          kind: 'set',
          values: {},
          next: {
            when: [
              { if: 'tags', then: 'tagged' },
              { if: 'meta', then: 'withMeta' },
            ],
            else: 'plain',
          },
        },
        tagged: { kind: 'set', values: { route: '"tagged"' } },
        withMeta: { kind: 'set', values: { route: '"meta"' } },
        plain: { kind: 'set', values: { route: '"plain"' } },
      },
    })
    const { graph } = await compileGraph('when', spec)
    const route = async (input: State) => (await graph.run(input)).state.route
    expect(await route({ tags: ['x'], meta: { a: 1 } })).toBe('tagged')
    expect(await route({ tags: [], meta: { a: 1 } })).toBe('meta')
    expect(await route({ tags: [0, ''], meta: {} })).toBe('plain')
    expect(await route({ tags: [0, 'y'], meta: null })).toBe('tagged')
    expect(await route({ tags: '', meta: 0 })).toBe('plain')
  })

  it('fails the step with a message naming the step and the expression', async () => {
    const spec = GraphSpec.parse({
      entry: 'calc',
      steps: { calc: { kind: 'set', values: { x: '$undefinedFn(1)' } } },
    })
    const { graph } = await compileGraph('bad', spec)
    const r = await graph.run({})
    expect(r.stopReason).toBe('error')
    expect(r.state.__error).toMatch(/^step "calc": expression "\$undefinedFn\(1\)" failed/)
    expect(r.state.__failed_step).toBe('calc')
  })

  it('refuses to compile a spec that does not parse, naming the problem', async () => {
    const spec = { entry: 'a', history: 'all', steps: {} } as unknown as GraphSpec
    await expect(compileGraph('x', spec)).rejects.toMatchObject({
      problems: [{ path: '/history', message: 'Invalid input: expected number, received string' }],
    })
  })

  it('refuses to compile a spec with a route to a missing step', async () => {
    const spec = {
      entry: 'a',
      history: -1,
      steps: { a: { kind: 'set', values: {}, next: 'ghost' } },
    } as GraphSpec
    await expect(compileGraph('x', spec)).rejects.toThrow(SpecCompileError)
    await expect(compileGraph('x', spec)).rejects.toMatchObject({
      problems: [{ path: '/steps/a/next', message: 'route to missing step "ghost"' }],
    })
  })
})
