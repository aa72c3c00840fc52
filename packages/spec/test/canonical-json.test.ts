import { describe, expect, it } from 'vitest'
import { canonicalJson, specDigest, type GraphSpec } from '@weave/spec'

describe('canonicalJson', () => {
  it('sorts keys at every depth and has no whitespace', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: 'x' })).toBe('{"a":"x","b":[{"c":2,"d":1}]}')
  })

  it('prints numbers as JavaScript does and drops undefined members', () => {
    expect(canonicalJson({ n: 1e21, f: 0.1, z: -0, u: undefined, a: [undefined] })).toBe(
      '{"a":[null],"f":0.1,"n":1e+21,"z":0}',
    )
  })

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson({ x: NaN })).toThrow(TypeError)
    expect(() => canonicalJson(undefined)).toThrow(TypeError)
  })
})

describe('specDigest', () => {
  const a: GraphSpec = {
    entry: 'x',
    history: -1,
    steps: { x: { kind: 'set', values: { a: '1', b: '2' } } },
  }
  const b = JSON.parse(
    '{"steps":{"x":{"values":{"b":"2","a":"1"},"kind":"set"}},"history":-1,"entry":"x"}',
  ) as GraphSpec

  it('is the same for the same spec whatever the key order', () => {
    expect(specDigest(a)).toBe(specDigest(b))
    expect(specDigest(a)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('changes when the spec changes', () => {
    expect(specDigest({ ...a, history: 0 })).not.toBe(specDigest(a))
  })
})
