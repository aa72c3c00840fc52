import { describe, expect, it } from 'vitest'
import {
  MemStore,
  FrozenMergeConfigError,
  Graph,
  MergeConfig,
  append,
  defaultMergeConfig,
  end,
  always,
  merge,
  mergeObject,
  overwrite,
  sum,
} from '@weave/kernel'
import type { Json, MergePolicy, State } from '@weave/kernel'

describe('merge policies', () => {
  it('overwrite returns the incoming value', () => {
    expect(overwrite(1, 2)).toBe(2)
    expect(overwrite(undefined, 'x')).toBe('x')
    expect(overwrite([1], null)).toBeNull()
  })

  it('append concatenates arrays', () => {
    expect(append([1, 2], [3, 4])).toEqual([1, 2, 3, 4])
  })

  it('append treats undefined as empty and wraps non-arrays', () => {
    expect(append(undefined, 'a')).toEqual(['a'])
    expect(append(undefined, ['a'])).toEqual(['a'])
    expect(append('a', 'b')).toEqual(['a', 'b'])
    expect(append(1, [2])).toEqual([1, 2])
    expect(append(null, 'x')).toEqual([null, 'x'])
    expect(append({ a: 1 }, [2])).toEqual([{ a: 1 }, 2])
  })

  it('append does not flatten nested arrays', () => {
    expect(append([[1]], [[2]])).toEqual([[1], [2]])
  })

  it('append returns a new array and leaves both arrays alone', () => {
    const a: Json[] = [1]
    const b: Json[] = [2]
    const out = append(a, b)
    expect(out).not.toBe(a)
    expect(out).not.toBe(b)
    expect(a).toEqual([1])
    expect(b).toEqual([2])
  })

  it('sum adds numbers', () => {
    expect(sum(1, 2)).toBe(3)
    expect(sum(1.5, -0.5)).toBe(1)
  })

  it('sum counts non-numbers as 0', () => {
    expect(sum(undefined, 5)).toBe(5)
    expect(sum('x', 2)).toBe(2)
    expect(sum(2, 'x')).toBe(2)
    expect(sum(null, null)).toBe(0)
    expect(sum([1], { a: 1 })).toBe(0)
  })

  it('mergeObject is a shallow spread of existing then incoming', () => {
    expect(mergeObject({ a: 1, b: { x: 1 } }, { b: { y: 2 }, c: 3 })).toEqual({
      a: 1,
      b: { y: 2 },
      c: 3,
    })
  })

  it('mergeObject counts non-objects as {}', () => {
    expect(mergeObject(undefined, { a: 1 })).toEqual({ a: 1 })
    expect(mergeObject(null, { a: 1 })).toEqual({ a: 1 })
    expect(mergeObject('s', { a: 1 })).toEqual({ a: 1 })
    expect(mergeObject({ a: 1 }, 5)).toEqual({ a: 1 })
    expect(mergeObject(7, null)).toEqual({})
  })

  it('mergeObject counts arrays as {} (an array is not a JSON object)', () => {
    expect(mergeObject([1, 2], { a: 1 })).toEqual({ a: 1 })
    expect(mergeObject({ a: 1 }, ['x'])).toEqual({ a: 1 })
  })

  it('mergeObject returns a new object and leaves its inputs alone', () => {
    const a = { x: 1 }
    const b = { y: 2 }
    const out = mergeObject(a, b)
    expect(out).not.toBe(a)
    expect(out).not.toBe(b)
    expect(a).toEqual({ x: 1 })
    expect(b).toEqual({ y: 2 })
  })
})

describe('MergeConfig', () => {
  it('register returns the config for chaining and policyFor finds the policy', () => {
    const c = new MergeConfig()
    expect(c.register('n', sum)).toBe(c)
    expect(c.policyFor('n')(1, 2)).toBe(3)
  })

  it('unregistered keys overwrite', () => {
    const c = new MergeConfig().register('n', sum)
    expect(c.policyFor('other')(1, 2)).toBe(2)
  })

  it('a new config is not frozen', () => {
    expect(new MergeConfig().frozen).toBe(false)
  })

  it('defaultMergeConfig appends "messages" and overwrites everything else', () => {
    const c = defaultMergeConfig()
    expect(c.policyFor('messages')(['a'], ['b'])).toEqual(['a', 'b'])
    expect(c.policyFor('n')(1, 2)).toBe(2)
  })

  it('defaultMergeConfig returns a fresh, unfrozen config each time', () => {
    const a = defaultMergeConfig()
    const b = defaultMergeConfig()
    expect(a).not.toBe(b)
    expect(a.frozen).toBe(false)
    a.register('n', sum)
    expect(b.policyFor('n')(1, 2)).toBe(2)
  })

  it('a Graph given the config freezes it, and register then throws FrozenMergeConfigError', () => {
    const c = defaultMergeConfig()
    new Graph('g', 'a', { merge: c })
    expect(c.frozen).toBe(true)
    expect(() => c.register('n', sum)).toThrow(FrozenMergeConfigError)
    expect(c.policyFor('n')(1, 2)).toBe(2)
  })
})

describe('merge', () => {
  it('merges the KERNEL.md example', () => {
    expect(
      merge({ n: 1, messages: ['a'] }, { n: 2, messages: ['b'] }, defaultMergeConfig()),
    ).toEqual({ n: 2, messages: ['a', 'b'] })
  })

  it('returns a new object even for an empty, null or void delta', () => {
    const s: State = { a: 1 }
    for (const d of [{}, null, undefined]) {
      const out = merge(s, d)
      expect(out).not.toBe(s)
      expect(out).toEqual({ a: 1 })
    }
  })

  it('keeps the state keys and overwrites without a config', () => {
    expect(merge({ a: 1, messages: ['x'] }, { b: 2, messages: ['y'] })).toEqual({
      a: 1,
      b: 2,
      messages: ['y'],
    })
  })

  it('skips delta keys whose value is undefined', () => {
    const out = merge({ a: 1 }, { a: undefined, b: undefined })
    expect(out).toEqual({ a: 1 })
    expect('b' in out).toBe(false)
  })

  it('stores a null value (null is not undefined)', () => {
    expect(merge({ a: 1 }, { a: null })).toEqual({ a: null })
  })

  it('calls policyFor(k)(state[k], delta[k]) for each own key of the delta', () => {
    const seen: Array<[string, Json | undefined, Json]> = []
    const spy =
      (key: string): MergePolicy =>
      (existing, incoming) => {
        seen.push([key, existing, incoming])
        return 'merged'
      }
    const c = new MergeConfig().register('a', spy('a')).register('b', spy('b'))
    const out = merge({ a: 1, z: 0 }, { a: 2, b: 3 }, c)
    expect(out).toEqual({ a: 'merged', b: 'merged', z: 0 })
    expect(seen).toEqual([
      ['a', 1, 2],
      ['b', undefined, 3],
    ])
  })

  it('ignores inherited keys of the delta', () => {
    const delta = Object.create({ inherited: 1 }) as State
    delta.own = 2
    const out = merge({}, delta)
    expect(out).toEqual({ own: 2 })
    expect('inherited' in out).toBe(false)
  })

  it('never modifies its arguments', () => {
    const state = Object.freeze({ a: Object.freeze([1]), n: 1 }) as unknown as State
    const delta = Object.freeze({ a: Object.freeze([2]), n: 2 }) as unknown as State
    const out = merge(state, delta, new MergeConfig().register('a', append).register('n', sum))
    expect(out).toEqual({ a: [1, 2], n: 3 })
    expect(state).toEqual({ a: [1], n: 1 })
    expect(delta).toEqual({ a: [2], n: 2 })
  })
})

describe('merge configs in a graph', () => {
  it('uses the graph config across steps', async () => {
    const g = new Graph('g', 'a', { merge: defaultMergeConfig().register('n', sum) })
      .addStep('a', () => ({ messages: ['a'], n: 1 }), always('b'))
      .addStep('b', () => ({ messages: ['b'], n: 2 }), end())
    const r = await g.run({ messages: ['in'], n: 10 })
    expect(r.state).toEqual({ messages: ['in', 'a', 'b'], n: 13 })
  })

  it('overwrites every key in a graph without merge', async () => {
    const g = new Graph('g', 'a')
      .addStep('a', () => ({ messages: ['a'] }), always('b'))
      .addStep('b', () => ({ messages: ['b'] }), end())
    const r = await g.run({ messages: ['in'] })
    expect(r.state).toEqual({ messages: ['b'] })
  })

  it('fails the step, and resolves a result, when a policy throws', async () => {
    const store = new MemStore()
    const policies = new MergeConfig().register('x', () => {
      throw new Error('policy refused')
    })
    const g = new Graph('g', 'a', { merge: policies }).addStep('a', () => ({ x: 1 }), end())
    const r = await g.run({ keep: true }, { store })
    expect(r).toMatchObject({ stopReason: 'error', lastStep: 'a', steps: 1 })
    expect(r.error?.message).toBe('policy refused')
    expect(r.state).toEqual({ keep: true, __error: 'policy refused', __failed_step: 'a' })
    expect((await g.history(r.runId, { store })).length).toBe(0)
  })

  it('fails the step when a policy returns a value with no JSON form', async () => {
    const policies = new MergeConfig().register('x', () => (() => 1) as unknown as Json)
    const g = new Graph('g', 'a', { merge: policies }).addStep('a', () => ({ x: 1 }), end())
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(TypeError)
  })

  it("hands out a policy's result deeply frozen and copied, as a resumed run would see it", async () => {
    const kept = { inner: { b: 1 } }
    const policies = new MergeConfig().register('x', () => Object.freeze(kept))
    let seen: State | undefined
    const g = new Graph('g', 'a', { merge: policies })
      .addStep('a', () => ({ x: 1, when: 0 }), always('b'))
      .addStep('b', (s) => {
        seen = s
        const x = s.x as { inner: { b: number } }
        x.inner.b = 99
        return {}
      })
    const r = await g.run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(TypeError)
    expect(seen!.x).toEqual({ inner: { b: 1 } })
    kept.inner.b = 2
    expect(seen!.x).toEqual({ inner: { b: 1 } })
  })

  it("copies a policy's result on resume too", async () => {
    const store = new MemStore()
    const kept = { inner: { b: 1 } }
    const policies = new MergeConfig().register('x', () => Object.freeze(kept))
    let seen: State | undefined
    const g = new Graph('g', 'a', { merge: policies }).addStep('a', (s) => {
      seen = s
      return s.x ? {} : { __yield: true }
    })
    const r = await g.run({}, { store })
    await g.resume(r.runId, { x: 1 }, { store })
    expect(Object.isFrozen((seen!.x as { inner: object }).inner)).toBe(true)
    expect((seen!.x as { inner: object }).inner).not.toBe(kept.inner)
  })
})
