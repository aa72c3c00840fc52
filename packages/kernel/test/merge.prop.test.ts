import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { MergeConfig, append, merge, mergeObject, overwrite, sum } from '@weave/kernel'
import type { Json, MergePolicy, State } from '@weave/kernel'
import { jsonValue, state, stateKey } from './arbitraries.js'

const policies: Record<string, MergePolicy> = { overwrite, append, sum, mergeObject }

/** A config registering a random policy for some keys. */
const config = fc
  .dictionary(stateKey, fc.constantFrom(...Object.keys(policies)), {
    maxKeys: 4,
    noNullPrototype: true,
  })
  .map((m) => {
    const c = new MergeConfig()
    for (const [k, p] of Object.entries(m)) c.register(k, policies[p]!)
    return { c, m }
  })

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x)
    Object.freeze(v)
  }
  return v
}

const A = (v: Json | undefined): Json[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])

describe('merge properties', () => {
  it('never mutates its inputs', () => {
    fc.assert(
      fc.property(state, state, config, (s, d, { c }) => {
        const before = structuredClone({ s, d })
        deepFreeze(s)
        deepFreeze(d)
        merge(s, d, c)
        expect({ s, d }).toEqual(before)
      }),
    )
  })

  it('returns a new object holding the union of the keys', () => {
    fc.assert(
      fc.property(state, state, config, (s, d, { c }) => {
        const out = merge(s, d, c)
        expect(out).not.toBe(s)
        expect(Object.keys(out).sort()).toEqual(
          [...new Set([...Object.keys(s), ...Object.keys(d)])].sort(),
        )
      }),
    )
  })

  it('without a config, delta values win and other state values stay', () => {
    fc.assert(
      fc.property(state, state, (s, d) => {
        expect(merge(s, d)).toEqual({ ...s, ...d })
      }),
    )
  })

  it('applies the registered policy per key and overwrites the rest', () => {
    fc.assert(
      fc.property(state, state, config, (s, d, { c, m }) => {
        const out = merge(s, d, c)
        for (const k of Object.keys(d)) {
          const p = m[k] ? policies[m[k]]! : overwrite
          expect(out[k]).toEqual(p(s[k], d[k]!))
        }
      }),
    )
  })

  it('append has the length of both sides, in order', () => {
    fc.assert(
      fc.property(fc.option(jsonValue, { nil: undefined }), jsonValue, (a, b) => {
        expect(append(a, b)).toEqual([...A(a), ...A(b)])
      }),
    )
  })

  it('sum adds numbers and counts the rest as 0', () => {
    fc.assert(
      fc.property(jsonValue, jsonValue, (a, b) => {
        const n = (v: Json) => (typeof v === 'number' ? v : 0)
        expect(sum(a, b)).toBe(n(a) + n(b))
      }),
    )
  })

  it('overwrite always yields the incoming value', () => {
    fc.assert(
      fc.property(jsonValue, jsonValue, (a, b) => {
        expect(overwrite(a, b)).toBe(b)
      }),
    )
  })

  it('mergeObject of two objects is their shallow spread', () => {
    fc.assert(
      fc.property(state, state, (a: State, b: State) => {
        expect(mergeObject(a, b)).toEqual({ ...a, ...b })
      }),
    )
  })
})
