import { describe, expect, it } from 'vitest'
import {
  Graph,
  KernelError,
  MemStore,
  ParallelConflictError,
  always,
  defaultMergeConfig,
  end,
  parallel,
} from '@weave/kernel'
import type { State, Step, StepContext } from '@weave/kernel'
import { RecordingStore, deferred, flush } from './helpers.js'

function single(step: Step, options = {}) {
  return new Graph('p', 'fan', options)
    .addStep('fan', step, always('after'))
    .addStep('after', () => ({ after: true }))
}

describe('parallel', () => {
  it('starts all branches at once on the same state', { timeout: 2000 }, async () => {
    const aStarted = deferred()
    const bStarted = deferred()
    const states: State[] = []
    const r = await single(
      parallel({
        a: async (s) => {
          states.push(s)
          aStarted.resolve()
          await bStarted.promise
          return { a: 1 }
        },
        b: async (s) => {
          states.push(s)
          bStarted.resolve()
          await aStarted.promise
          return { b: 2 }
        },
      }),
    ).run({ in: 'x' })
    expect(r.stopReason).toBe('completed')
    expect(r.state).toEqual({ in: 'x', a: 1, b: 2, after: true })
    expect(states).toEqual([{ in: 'x' }, { in: 'x' }])
  })

  it('gives each branch the context of the step with step "<step>/<branch>"', async () => {
    const ctxs: Record<string, StepContext> = {}
    const store = new MemStore()
    await single(
      parallel({
        web: (_s, ctx) => ((ctxs.web = ctx), {}),
        docs: (_s, ctx) => ((ctxs.docs = ctx), {}),
      }),
    ).run({}, { store, runId: 'r1' })
    for (const name of ['web', 'docs']) {
      const c = ctxs[name]!
      expect(c.step).toBe(`fan/${name}`)
      expect(c.runId).toBe('r1')
      expect(c.graph).toBe('p')
      expect(c.seq).toBe(1)
      expect(c.store).toBe(store)
      expect(c.signal).toBeInstanceOf(AbortSignal)
    }
  })

  it('unions branch deltas by default (the research example)', async () => {
    const g = new Graph('p', 'research')
      .addStep(
        'research',
        parallel({ web: () => ({ web: ['w'] }), docs: () => ({ docs: ['d'] }) }),
        always('write'),
      )
      .addStep('write', (s) => ({ report: `${String(s.web)}+${String(s.docs)}` }))
    const r = await g.run({})
    expect(r.state).toEqual({ web: ['w'], docs: ['d'], report: 'w+d' })
  })

  it('fails the step with ParallelConflictError when two deltas share a key', async () => {
    const r = await single(parallel({ a: () => ({ x: 1, a: 1 }), b: () => ({ x: 2 }) })).run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(ParallelConflictError)
    const e = r.error as ParallelConflictError
    expect(e.key).toBe('x')
    expect([...e.branches].sort()).toEqual(['a', 'b'])
    expect(r.state.__failed_step).toBe('fan')
  })

  it('turns undefined and null branch deltas into {}', async () => {
    const r = await single(
      parallel({ a: () => undefined, b: () => null, c: () => ({ c: 1 }) }),
    ).run({})
    expect(r.stopReason).toBe('completed')
    expect(r.state).toEqual({ c: 1, after: true })
  })

  it('JSON-copies branch deltas', async () => {
    const seen: Array<Record<string, State>> = []
    const d = new Date('2020-01-02T03:04:05.000Z')
    const r = await single(
      parallel(
        { a: () => ({ when: d as unknown as string, gone: undefined }) },
        (deltas) => (seen.push(deltas), deltas.a),
      ),
    ).run({})
    expect(seen[0]).toEqual({ a: { when: '2020-01-02T03:04:05.000Z' } })
    expect('gone' in seen[0]!.a!).toBe(false)
    expect(r.state.when).toBe('2020-01-02T03:04:05.000Z')
  })

  it('fails the step with KernelError when a branch yields', async () => {
    const r = await single(parallel({ a: () => ({ __yield: true }), b: () => ({}) })).run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(KernelError)
    expect(r.state.__failed_step).toBe('fan')
  })

  it('uses a custom merge on the deltas in declaration order and the state', async () => {
    const calls: Array<[string[], State]> = []
    const r = await single(
      parallel(
        { z: () => ({ n: 1 }), a: () => ({ n: 2 }), m: () => ({ n: 3 }) },
        (deltas, state) => {
          calls.push([Object.keys(deltas), state])
          return { total: Object.values(deltas).reduce((t, d) => t + (d.n as number), 0) }
        },
      ),
    ).run({ base: true })
    expect(calls).toEqual([[['z', 'a', 'm'], { base: true }]])
    expect(r.state).toEqual({ base: true, total: 6, after: true })
  })

  it('merges the parallel delta with the graph config', async () => {
    const r = await single(
      parallel({ a: () => ({ a: 1 }), b: () => ({ b: 1 }) }, () => ({ messages: ['p'] })),
      { merge: defaultMergeConfig() },
    ).run({ messages: ['in'] })
    expect(r.state.messages).toEqual(['in', 'p'])
  })

  it('aborts the other branches when one throws and throws the first error once all settled', async () => {
    const first = new Error('a failed')
    const bAborted = deferred()
    const bRelease = deferred()
    let bSignal: AbortSignal | undefined
    let bSettled = false
    const p = single(
      parallel({
        a: async () => {
          await Promise.resolve()
          throw first
        },
        b: async (_s, ctx) => {
          bSignal = ctx.signal
          await new Promise<void>((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve()),
          )
          bAborted.resolve()
          await bRelease.promise
          bSettled = true
          throw new Error('b noticed the abort')
        },
      }),
    ).run({})
    let done = false
    void p.then(() => (done = true))
    await bAborted.promise
    await flush()
    expect(done).toBe(false)
    bRelease.resolve()
    const r = await p
    expect(bSettled).toBe(true)
    expect(bSignal!.aborted).toBe(true)
    expect(r.stopReason).toBe('error')
    expect(r.error).toBe(first)
  })

  it('aborts the branch signals when the run signal aborts', async () => {
    const ac = new AbortController()
    const started = deferred()
    const signals: AbortSignal[] = []
    const waitAbort = async (_s: State, ctx: StepContext) => {
      signals.push(ctx.signal)
      if (signals.length === 2) started.resolve()
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
      return {}
    }
    const p = single(parallel({ a: waitAbort, b: waitAbort })).run({}, { signal: ac.signal })
    await started.promise
    ac.abort()
    const r = await p
    expect(signals.every((s) => s.aborted)).toBe(true)
    expect(r.stopReason).toBe('cancelled')
  })

  it('is one step: one seq, one budget unit, one checkpoint', async () => {
    const rec = new RecordingStore()
    const seqs: number[] = []
    const g = new Graph('p', 'fan', { stepBudget: 2 })
      .addStep(
        'fan',
        parallel({ a: () => ({ a: 1 }), b: () => ({ b: 1 }), c: () => ({ c: 1 }) }),
        always('after'),
      )
      .addStep('after', (_s, ctx) => (seqs.push(ctx.seq), {}), end())
    const r = await g.run({}, { store: rec.store })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 2 })
    expect(r.state.__budget_remaining).toBe(0)
    expect(seqs).toEqual([2])
    expect(rec.writes().filter((c) => c.op === 'put')).toHaveLength(2)
  })
})
