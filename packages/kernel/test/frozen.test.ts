import { describe, expect, it } from 'vitest'
import { Graph, MemStore, always, end, parallel } from '@weave/kernel'
import type { State, StepEvent, StepHook } from '@weave/kernel'
import { collect, isDeepFrozen } from './helpers.js'

const nested = (): State => ({ list: [1, { deep: [2] }], obj: { inner: { x: 1 } } })

describe('deep freeze of every state handed out', () => {
  it('freezes the state given to steps, routers, hooks, events and the result', async () => {
    const handed: Array<[string, unknown]> = []
    const hook =
      (when: string): StepHook =>
      (_step, s) =>
        void handed.push([when, s])
    const g = new Graph('g', 'a', { hooks: { before: [hook('before')], after: [hook('after')] } })
      .addStep(
        'a',
        (s) => (handed.push(['step a', s]), { more: { arr: [1, [2]] } }),
        (s) => {
          handed.push(['router', s])
          return 'b'
        },
      )
      .addStep('b', (s) => (handed.push(['step b', s]), {}), end())
    const events = await collect(g.stream(nested()))
    for (const e of events) handed.push([e.type, e.type === 'step' ? e.state : e.result.state])
    const result = await g.run(nested())
    handed.push(['run result', result.state])
    expect(handed.length).toBeGreaterThan(8)
    for (const [where, s] of handed) expect([where, isDeepFrozen(s)]).toEqual([where, true])
  })

  it('freezes resumeInput and the state of a resumed step', async () => {
    const store = new MemStore()
    const seen: unknown[] = []
    const g = new Graph('g', 'a').addStep('a', (s, ctx) => {
      if (ctx.resumeInput) seen.push(ctx.resumeInput, s)
      return s.ok ? {} : { __yield: true }
    })
    const r = await g.run({}, { store })
    await g.resume(r.runId, { ok: true, nested: { a: [1] } }, { store })
    expect(seen).toHaveLength(2)
    for (const v of seen) expect(isDeepFrozen(v)).toBe(true)
  })

  it('freezes the state given to parallel branches and the merge function', async () => {
    const seen: unknown[] = []
    const g = new Graph('g', 'p').addStep(
      'p',
      parallel(
        { a: (s) => (seen.push(s), { a: [1] }), b: (s) => (seen.push(s), { b: { x: 1 } }) },
        (d, s) => {
          seen.push(s)
          return { ...d.a, ...d.b }
        },
      ),
    )
    await g.run(nested())
    expect(seen).toHaveLength(3)
    for (const v of seen) expect(isDeepFrozen(v)).toBe(true)
  })

  it('a step cannot change the state it is given', async () => {
    let threw = false
    const g = new Graph('g', 'a').addStep('a', (s) => {
      try {
        ;((s.obj as Record<string, unknown>).inner as Record<string, unknown>).x = 2
      } catch {
        threw = true
      }
      return {}
    })
    const r = await g.run(nested())
    expect(threw).toBe(true)
    expect(r.state).toEqual(nested())
  })
})

describe('the caller input', () => {
  it('is never modified or frozen by run', async () => {
    const input = nested()
    const g = new Graph('g', 'a').addStep('a', () => ({ list: ['replaced'], added: 1 }))
    await g.run(input)
    expect(input).toEqual(nested())
    expect(Object.isFrozen(input)).toBe(false)
    expect(Object.isFrozen(input.list)).toBe(false)
  })

  it('is never modified or frozen by resume', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a', { stepBudget: 5 }).addStep('a', (s) =>
      s.ok ? {} : { __yield: true },
    )
    const r = await g.run({}, { store })
    const input: State = { ok: true, list: [1, { a: 2 }] }
    await g.resume(r.runId, input, { store })
    expect(input).toEqual({ ok: true, list: [1, { a: 2 }] })
    expect(Object.isFrozen(input)).toBe(false)
  })

  it('is copied: changing it during the run does not reach the run', async () => {
    const input: State = { v: 1 }
    let seen: unknown
    const g = new Graph('g', 'a')
      .addStep('a', () => ((input.v = 99), {}), always('b'))
      .addStep('b', (s) => ((seen = s.v), {}))
    await g.run(input)
    expect(seen).toBe(1)
  })
})

describe('JSON copies of inputs and deltas', () => {
  it('turns a Date into its ISO string and drops undefined in the input', async () => {
    let seen: State | undefined
    const g = new Graph('g', 'a').addStep('a', (s) => ((seen = s), {}))
    const when = new Date('2021-05-06T07:08:09.000Z')
    await g.run({ when, gone: undefined, inner: { gone: undefined, keep: 1 } } as unknown as State)
    expect(seen).toEqual({ when: '2021-05-06T07:08:09.000Z', inner: { keep: 1 } })
    expect('gone' in seen!).toBe(false)
    expect('gone' in (seen!.inner as object)).toBe(false)
  })

  it('turns a Date into its ISO string and drops undefined in a delta', async () => {
    const g = new Graph('g', 'a').addStep(
      'a',
      () =>
        ({
          when: new Date('2021-05-06T07:08:09.000Z'),
          inner: { gone: undefined, keep: 1 },
          list: [undefined, 1],
        }) as unknown as State,
    )
    const r = await g.run({})
    expect(r.state).toEqual({
      when: '2021-05-06T07:08:09.000Z',
      inner: { keep: 1 },
      list: [null, 1],
    })
    expect('gone' in (r.state.inner as object)).toBe(false)
  })

  it('copies the delta: a step changing its returned object later does not reach the state', async () => {
    const kept: { list: number[] } = { list: [1] }
    const g = new Graph('g', 'a')
      .addStep('a', () => kept, always('b'))
      .addStep('b', () => {
        kept.list.push(2)
        return {}
      })
    const r = await g.run({})
    expect(r.state.list).toEqual([1])
  })

  it('stores what a resumed run sees: the resume input is copied the same way', async () => {
    const store = new MemStore()
    let seen: State | undefined
    const g = new Graph('g', 'a').addStep('a', (s) => {
      seen = s
      return s.when ? {} : { __yield: true }
    })
    const r = await g.run({}, { store })
    await g.resume(r.runId, { when: new Date(0), drop: undefined } as unknown as State, { store })
    expect(seen).toEqual({ when: new Date(0).toISOString() })
  })
})

describe('values JSON writes differently from how they look', () => {
  const sameAsJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown

  it('turns -0 into 0 in the input and in a delta, as a resumed run would see it', async () => {
    let seen: State | undefined
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ x: -0, list: [-0] }), always('b'))
      .addStep('b', (s) => ((seen = s), {}))
    await g.run({ y: -0 })
    expect(Object.is(seen!.x, 0)).toBe(true)
    expect(Object.is((seen!.list as number[])[0], 0)).toBe(true)
    expect(Object.is(seen!.y, 0)).toBe(true)
  })

  it('turns boxed primitives into the primitives they hold', async () => {
    const boxed = {
      s: new String('ab'),
      n: new Number(5),
      inf: new Number(Infinity),
      b: new Boolean(false),
      list: [new String('x')],
    }
    const g = new Graph('g', 'a').addStep('a', () => boxed as unknown as State)
    const r = await g.run({ i: new String('xy') } as unknown as State)
    expect(r.state).toEqual({ i: 'xy', ...(sameAsJson(boxed) as State) })
    expect(r.state).toEqual({ i: 'xy', s: 'ab', n: 5, inf: null, b: false, list: ['x'] })
  })
})

describe('non-JSON values', () => {
  const cyclic = () => {
    const o: Record<string, unknown> = {}
    o.self = o
    return o
  }
  const bad: Array<[string, () => unknown]> = [
    ['a function', () => () => 1],
    ['a symbol', () => Symbol('s')],
    ['a BigInt', () => 1n],
    ['a cyclic object', cyclic],
  ]

  it.each(bad)(
    'in the input (%s) rejects run with a TypeError naming the key',
    async (_name, make) => {
      const g = new Graph('g', 'a').addStep('a', () => ({}))
      const err = await g
        .run({ ok: 1, offendingKey: make() } as unknown as State)
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(TypeError)
      expect((err as Error).message).toContain('offendingKey')
    },
  )

  it.each(bad)(
    'in the resume input (%s) rejects with a TypeError naming the key',
    async (_name, make) => {
      const store = new MemStore()
      const g = new Graph('g', 'a').addStep('a', (s) => (s.ok ? {} : { __yield: true }))
      const r = await g.run({}, { store })
      const err = await g
        .resume(r.runId, { offendingKey: make() } as unknown as State, { store })
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(TypeError)
      expect((err as Error).message).toContain('offendingKey')
    },
  )

  it.each(bad)(
    'in a delta (%s) fails the step with an error naming the key',
    async (_name, make) => {
      const g = new Graph('g', 'a').addStep(
        'a',
        () => ({ fine: 1, offendingKey: make() }) as unknown as State,
      )
      const r = await g.run({})
      expect(r.stopReason).toBe('error')
      expect(r.state.__failed_step).toBe('a')
      expect(r.error?.message).toContain('offendingKey')
      expect(r.state.fine).toBeUndefined()
    },
  )
})

describe('events', () => {
  it('carry frozen states that are not shared with later events', async () => {
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ n: 1 }), always('b'))
      .addStep('b', () => ({ n: 2 }))
    const events: StepEvent[] = await collect(g.stream({}))
    const states = events.flatMap((e) => (e.type === 'step' ? [e.state] : []))
    expect(states.map((s) => s.n)).toEqual([1, 2])
  })
})
