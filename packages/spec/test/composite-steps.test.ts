import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemStore, type Graph } from '@weave/kernel'
import {
  compileGraph,
  createHandlerRegistry,
  defineHandler,
  GraphSpec,
  SpecCompileError,
  type CompileDeps,
} from '@weave/spec'
import { sendJson, startLocalServer, type LocalServer } from './support/local-server.js'
import { createYieldHost, type YieldHost } from './support/yield-host.js'

let server: LocalServer
beforeAll(async () => {
  server = await startLocalServer((req, res) => sendJson(res, 200, { path: req.url }))
})
afterAll(() => server.close())

const children: Record<string, unknown> = {
  'review-child': {
    entry: 'ask',
    steps: {
      ask: { kind: 'approval', title: 'Approve {{ amount }}?', next: 'mark' },
      mark: { kind: 'set', values: { verdict: 'ask.status' } },
    },
  },
  doubler: { entry: 'double', steps: { double: { kind: 'set', values: { doubled: 'n * 2' } } } },
  forger: {
    entry: 'forge',
    steps: {
      forge: { kind: 'set', values: { review: "{ 'status': 'approved' }", forged: 'true' } },
    },
  },
}

function depsWith(host: YieldHost = createYieldHost(), extra: CompileDeps = {}): CompileDeps {
  const deps: CompileDeps = {
    ...extra,
    approvals: host.approvals,
    loadSubgraph: async (name: string): Promise<Graph> => {
      const spec = GraphSpec.parse(children[name])
      return (await compileGraph(name, spec, deps)).graph
    },
  }
  return deps
}

describe('subgraph step', () => {
  it('yields the parent when the child asks for approval and resumes into the child', async () => {
    const host = createYieldHost()
    const spec = GraphSpec.parse({
      entry: 'child',
      steps: {
        child: {
          kind: 'subgraph',
          graph: 'review-child',
          input: "{ 'amount': amount * 100 }",
          saveAs: 'review',
          next: 'after',
        },
        after: { kind: 'set', values: { final: 'review.verdict' } },
      },
    })
    const { graph } = await compileGraph('parent', spec, depsWith(host))
    const store = new MemStore()
    const r = host.record(await graph.run({ amount: 3 }, { store }))
    expect(r.stopReason).toBe('yielded')
    expect(host.reasons).toEqual([
      expect.objectContaining({ kind: 'approval', runId: `${r.runId}/child`, step: 'ask' }),
    ])
    expect(host.reasons[0]).toMatchObject({ title: 'Approve 300?' })
    host.settle(`${r.runId}/child`, 'ask', { status: 'approved', approvalId: 'a-1', decisions: [] })
    const done = await graph.resume(r.runId, {}, { store })
    expect(done.stopReason).toBe('completed')
    expect(done.state.final).toBe('approved')
    expect(done.state.review).toMatchObject({ amount: 300, verdict: 'approved' })
  })

  it('merges the child state into the parent without saveAs', async () => {
    const spec = GraphSpec.parse({
      entry: 'c',
      steps: { c: { kind: 'subgraph', graph: 'doubler' } },
    })
    const { graph } = await compileGraph('p', spec, depsWith())
    const r = await graph.run({ n: 21, __ignored: 1 })
    expect(r.state).toMatchObject({ n: 21, doubled: 42 })
  })

  it("never merges a child's write to the parent's decision record", async () => {
    const host = createYieldHost()
    const spec = GraphSpec.parse({
      entry: 'c',
      steps: {
        c: { kind: 'subgraph', graph: 'forger', next: 'review' },
        review: { kind: 'approval', title: 'Ship it?' },
      },
    })
    const { graph } = await compileGraph('p', spec, depsWith(host))
    const r = host.record(await graph.run({}))
    expect(r.state.forged).toBe(true)
    expect(r.state.review).toBeUndefined()
    expect(r.stopReason).toBe('yielded')
  })

  it('fails when the input expression does not give an object', async () => {
    const spec = GraphSpec.parse({
      entry: 'c',
      steps: { c: { kind: 'subgraph', graph: 'doubler', input: 'n' } },
    })
    const { graph } = await compileGraph('p', spec, depsWith())
    const r = await graph.run({ n: 1 }, { store: new MemStore() })
    expect(r.state.__error).toMatch(/subgraph input must be an object, got 1/)
  })

  it('refuses to compile without a loader, or when the loader fails', async () => {
    const spec = GraphSpec.parse({ entry: 'c', steps: { c: { kind: 'subgraph', graph: 'x' } } })
    await expect(compileGraph('p', spec)).rejects.toThrow(SpecCompileError)
    const failing = { loadSubgraph: () => Promise.reject(new Error('no such graph')) }
    await expect(compileGraph('p', spec, failing)).rejects.toThrow(
      /\/steps\/c: cannot load graph "x": no such graph/,
    )
  })
})

describe('parallel step', () => {
  const handlers = createHandlerRegistry([
    defineHandler('score', (state, { config }) => ({ score: Number(state.n) + Number(config) })),
  ])

  it('runs set, http, handler and subgraph branches and saves them by branch', async () => {
    const spec = GraphSpec.parse({
      entry: 'fan',
      steps: {
        fan: {
          kind: 'parallel',
          saveAs: 'results',
          branches: {
            calc: { kind: 'set', values: { sum: 'n + 1' } },
            fetch: { kind: 'http', method: 'GET', url: `${server.origin}/n/{{ n }}` },
            rank: { kind: 'handler', name: 'score', config: 10 },
            child: { kind: 'subgraph', graph: 'doubler', saveAs: 'out' },
          },
        },
      },
    })
    const deps = depsWith(createYieldHost(), { handlers, http: { allow: ['127.0.0.1'] } })
    const { graph } = await compileGraph('fan', spec, deps)
    const r = await graph.run({ n: 4 }, { store: new MemStore() })
    expect(r.stopReason).toBe('completed')
    expect(r.steps).toBe(1)
    const results = r.state.results as Record<string, Record<string, unknown>>
    expect(results.calc).toEqual({ sum: 5 })
    expect(results.fetch!.fetch).toMatchObject({ status: 200, body: { path: '/n/4' } })
    expect(results.rank).toEqual({ score: 14 })
    expect(results.child!.out).toMatchObject({ doubled: 8 })
    const key = server.received.at(-1)!.headers['idempotency-key']
    expect(key).toBe(`${r.runId}:fan/fetch:1`)
  })

  it('unites branch deltas without saveAs', async () => {
    const spec = GraphSpec.parse({
      entry: 'fan',
      steps: {
        fan: {
          kind: 'parallel',
          branches: {
            a: { kind: 'set', values: { a: '1' } },
            b: { kind: 'set', values: { b: '2' } },
          },
        },
      },
    })
    const { graph } = await compileGraph('fan', spec)
    expect((await graph.run({})).state).toMatchObject({ a: 1, b: 2 })
  })

  it('aborts the other branches when one fails', async () => {
    let sawAbort = false
    const registry = createHandlerRegistry([
      defineHandler('slow', (_s, { signal }) => {
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort = true
            reject(new Error('aborted'))
          })
        })
      }),
      defineHandler('boom', async () => {
        throw new Error('boom')
      }),
    ])
    const spec = GraphSpec.parse({
      entry: 'fan',
      steps: {
        fan: {
          kind: 'parallel',
          branches: {
            slow: { kind: 'handler', name: 'slow' },
            boom: { kind: 'handler', name: 'boom' },
          },
        },
      },
    })
    const { graph } = await compileGraph('fan', spec, { handlers: registry })
    const r = await graph.run({})
    expect(r.stopReason).toBe('error')
    expect(r.state.__error).toBe('boom')
    expect(sawAbort).toBe(true)
  })
})
