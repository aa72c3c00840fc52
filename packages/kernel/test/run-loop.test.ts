import { describe, expect, it } from 'vitest'
import {
  Graph,
  KernelError,
  MaxIterationsError,
  MemStore,
  StepNotFoundError,
  always,
  end,
} from '@weave/kernel'
import type { State, Step, StepContext } from '@weave/kernel'
import { deferred, readCheckpoint } from './helpers.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function chain(log: string[] = []) {
  return new Graph('chain', 'a')
    .addStep('a', () => (log.push('a'), { a: 1 }), always('b'))
    .addStep('b', () => (log.push('b'), { b: 2 }), always('c'))
    .addStep('c', () => (log.push('c'), { c: 3 }), end())
}

describe('a completed run', () => {
  it('runs the KERNEL.md greeter', async () => {
    const g = new Graph('greeter', 'greet').addStep(
      'greet',
      (s) => ({ out: `Hello, ${String(s.name)}!` }),
      end(),
    )
    expect((await g.run({ name: 'World' })).state.out).toBe('Hello, World!')
  })

  it('returns the full RunResult', async () => {
    const log: string[] = []
    const r = await chain(log).run({ x: 0 }, { runId: 'r1' })
    expect(log).toEqual(['a', 'b', 'c'])
    expect(r).toMatchObject({
      runId: 'r1',
      state: { x: 0, a: 1, b: 2, c: 3 },
      lastStep: 'c',
      yielded: false,
      steps: 3,
      stopReason: 'completed',
    })
    expect(r.error).toBeUndefined()
  })

  it('generates a UUID run id when none is given', async () => {
    const a = await chain().run({})
    const b = await chain().run({})
    expect(a.runId).toMatch(UUID)
    expect(b.runId).toMatch(UUID)
    expect(a.runId).not.toBe(b.runId)
  })

  it('completes at a step without router and at an END router', async () => {
    const g1 = new Graph('g', 'a').addStep('a', () => ({ x: 1 }))
    const g2 = new Graph('g', 'a').addStep(
      'a',
      () => ({ x: 1 }),
      () => '',
    )
    for (const g of [g1, g2]) {
      const r = await g.run({})
      expect(r.stopReason).toBe('completed')
      expect(r.steps).toBe(1)
    }
  })

  it('runs without a store', async () => {
    expect((await chain().run({})).stopReason).toBe('completed')
  })

  it('leaves state unchanged for a void, undefined or null delta', async () => {
    for (const ret of [undefined, null]) {
      const g = new Graph('g', 'a').addStep('a', () => ret)
      const r = await g.run({ x: 1 })
      expect(r.stopReason).toBe('completed')
      expect(r.state).toEqual({ x: 1 })
    }
  })

  it('awaits async steps', async () => {
    const g = new Graph('g', 'a')
      .addStep('a', async () => ({ a: 1 }), always('b'))
      .addStep('b', async (s) => ({ b: (s.a as number) + 1 }))
    expect((await g.run({})).state).toEqual({ a: 1, b: 2 })
  })
})

describe('the step context', () => {
  it('carries runId, graph, step, seq, store and signal', async () => {
    const seen: StepContext[] = []
    const step: Step = (_s, ctx) => {
      seen.push(ctx)
      return {}
    }
    const store = new MemStore()
    const g = new Graph('ctx', 'a').addStep('a', step, always('b')).addStep('b', step)
    await g.run({}, { store, runId: 'r1' })
    expect(seen.map((c) => [c.runId, c.graph, c.step, c.seq])).toEqual([
      ['r1', 'ctx', 'a', 1],
      ['r1', 'ctx', 'b', 2],
    ])
    for (const c of seen) {
      expect(c.store).toBe(store)
      expect(c.signal).toBeInstanceOf(AbortSignal)
      expect(c.resumeInput).toBeUndefined()
    }
  })

  it('has no store when the run has none', async () => {
    let ctx: StepContext | undefined
    await new Graph('g', 'a').addStep('a', (_s, c) => ((ctx = c), {})).run({})
    expect(ctx?.store).toBeUndefined()
  })
})

describe('control keys in deltas', () => {
  it('removes __yield: false and a stray __yield_phase without yielding', async () => {
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ __yield: false, __yield_phase: 'after_step', x: 1 }), always('b'))
      .addStep('b', () => ({ y: 2 }))
    const r = await g.run({})
    expect(r.stopReason).toBe('completed')
    expect(r.state).toEqual({ x: 1, y: 2 })
  })

  it('ignores __budget_remaining in a delta when there is no budget', async () => {
    const g = new Graph('g', 'a').addStep('a', () => ({ __budget_remaining: 5, x: 1 }))
    const r = await g.run({})
    expect(r.state).toEqual({ x: 1 })
  })
})

describe('a failing step', () => {
  it('stops with error, the thrown error and __error/__failed_step in state', async () => {
    const boom = new Error('boom')
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ x: 1 }), always('b'))
      .addStep(
        'b',
        () => {
          throw boom
        },
        always('c'),
      )
      .addStep('c', () => ({ c: true }))
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBe(boom)
    expect(r.lastStep).toBe('b')
    expect(r.steps).toBe(2)
    expect(r.yielded).toBe(false)
    expect(r.state).toEqual({ x: 1, __error: 'boom', __failed_step: 'b' })
  })

  it('treats a rejected promise like a throw', async () => {
    const g = new Graph('g', 'a').addStep('a', async () => Promise.reject(new Error('nope')))
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.state.__error).toBe('nope')
  })

  it('wraps a thrown non-Error in an Error', async () => {
    const g = new Graph('g', 'a').addStep('a', () => {
      throw 'plain string'
    })
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(Error)
    expect(r.state.__failed_step).toBe('a')
  })

  it('writes a failed checkpoint', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ x: 1 }), always('b'))
      .addStep('b', () => {
        throw new Error('boom')
      })
    await g.run({}, { store, runId: 'r1' })
    const cp = await readCheckpoint(store, 'g', 'r1')
    expect(cp).toMatchObject({
      status: 'failed',
      last_step: 'b',
      seq: 2,
      state: { x: 1, __error: 'boom', __failed_step: 'b' },
    })
  })

  const badDeltas: Array<[string, unknown]> = [
    ['an array', [1, 2]],
    ['a number', 5],
    ['a string', 'text'],
    ['a boolean', true],
    ['a delta holding a BigInt', { big: 10n }],
    ['a delta holding a function', { fn: () => 1 }],
  ]
  it.each(badDeltas)('fails a step returning %s as if it threw', async (_name, value) => {
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ x: 1 }), always('b'))
      .addStep('b', (() => value) as Step, always('c'))
      .addStep('c', () => ({ c: 1 }))
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(Error)
    expect(r.lastStep).toBe('b')
    expect(r.state.__failed_step).toBe('b')
    expect(typeof r.state.__error).toBe('string')
    expect(r.state.x).toBe(1)
    expect(r.state.c).toBeUndefined()
  })

  it('fails a step returning a cyclic delta as if it threw', async () => {
    const g = new Graph('g', 'a').addStep('a', () => {
      const cyc: Record<string, unknown> = {}
      cyc.self = cyc
      return { cyc } as unknown as State
    })
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.state.__failed_step).toBe('a')
  })
})

describe('routers that fail', () => {
  it('a router throw stops with error and that error', async () => {
    const bad = new Error('router broke')
    const g = new Graph('g', 'a').addStep(
      'a',
      () => ({ x: 1 }),
      () => {
        throw bad
      },
    )
    const store = new MemStore()
    const r = await g.run({}, { store, runId: 'r1' })
    expect(r.stopReason).toBe('error')
    expect(r.error).toBe(bad)
    expect(r.lastStep).toBe('a')
    expect(r.steps).toBe(1)
    expect((await readCheckpoint(store, 'g', 'r1')).status).toBe('step_done')
  })

  it('a router returning a non-string stops with error', async () => {
    const g = new Graph('g', 'a').addStep('a', () => ({}), (() => 42) as unknown as () => string)
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(Error)
  })

  it('an unregistered step name stops with StepNotFoundError and keeps the step checkpoint', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a').addStep(
      'a',
      () => ({ x: 1 }),
      () => 'ghost',
    )
    const r = await g.run({}, { store, runId: 'r1' })
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(StepNotFoundError)
    expect((r.error as StepNotFoundError).step).toBe('ghost')
    expect(r.lastStep).toBe('a')
    expect(r.state).toEqual({ x: 1 })
    const cp = await readCheckpoint(store, 'g', 'r1')
    expect(cp).toMatchObject({ status: 'step_done', last_step: 'a', seq: 1 })
  })
})

describe('maxIterations', () => {
  it('stops with max_iter after maxIterations steps of this invocation', async () => {
    const store = new MemStore()
    let n = 0
    const g = new Graph('loop', 'x', { maxIterations: 3 }).addStep(
      'x',
      () => ({ n: ++n }),
      always('x'),
    )
    const r = await g.run({}, { store, runId: 'r1' })
    expect(r.stopReason).toBe('max_iter')
    expect(r.steps).toBe(3)
    expect(r.lastStep).toBe('x')
    expect(r.error).toBeInstanceOf(MaxIterationsError)
    expect((r.error as MaxIterationsError).limit).toBe(3)
    expect(r.state.n).toBe(3)

    const seqs: number[] = []
    const again = await new Graph('loop', 'x', { maxIterations: 3 })
      .addStep('x', (_s, ctx) => (seqs.push(ctx.seq), { n: ++n }), always('x'))
      .resume('r1', {}, { store })
    expect(again.stopReason).toBe('max_iter')
    expect(again.steps).toBe(3)
    expect(seqs).toEqual([4, 5, 6])
  })

  it('defaults to 100', async () => {
    const g = new Graph('loop', 'x').addStep('x', () => ({}), always('x'))
    const r = await g.run({})
    expect(r.stopReason).toBe('max_iter')
    expect(r.steps).toBe(100)
  })

  it('names the step due next as lastStep', async () => {
    const g = new Graph('g', 'a', { maxIterations: 1 })
      .addStep('a', () => ({}), always('b'))
      .addStep('b', () => ({}))
    const r = await g.run({})
    expect(r.stopReason).toBe('max_iter')
    expect(r.lastStep).toBe('b')
  })
})

describe('misuse', () => {
  const g = new Graph('g', 'a').addStep('a', () => ({}))

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'x'],
    ['a number', 1],
    ['a Map', new Map()],
    ['a class instance', new (class Thing {})()],
  ])('rejects input that is %s with TypeError', async (_name, input) => {
    await expect(g.run(input as unknown as State)).rejects.toBeInstanceOf(TypeError)
  })

  it('rejects an empty runId with TypeError', async () => {
    await expect(g.run({}, { runId: '' })).rejects.toBeInstanceOf(TypeError)
  })

  it('rejects resume and resumeAt without a store with TypeError', async () => {
    const noStore = {} as { store: MemStore }
    await expect(g.resume('r', {}, noStore)).rejects.toBeInstanceOf(TypeError)
    await expect(g.resumeAt('r', 1, {}, noStore)).rejects.toBeInstanceOf(TypeError)
  })

  it('resolves a RunResult for every stop instead of rejecting', async () => {
    const g2 = new Graph('g', 'a').addStep('a', () => {
      throw new KernelError('any')
    })
    await expect(g2.run({})).resolves.toMatchObject({ stopReason: 'error' })
  })
})

describe('concurrency', () => {
  it('runs many runs of one graph at once without sharing state', async () => {
    const gates = [deferred(), deferred()]
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        async (s) => {
          await gates[s.i as number]!.promise
          return { seen: s.i }
        },
        always('b'),
      )
      .addStep('b', (s) => ({ out: `${String(s.seen)}-${String(s.i)}` }))
    const p0 = g.run({ i: 0 }, { runId: 'r0' })
    const p1 = g.run({ i: 1 }, { runId: 'r1' })
    gates[1]!.resolve()
    const r1 = await p1
    gates[0]!.resolve()
    const r0 = await p0
    expect(r0).toMatchObject({ runId: 'r0', state: { i: 0, seen: 0, out: '0-0' } })
    expect(r1).toMatchObject({ runId: 'r1', state: { i: 1, seen: 1, out: '1-1' } })
  })
})
