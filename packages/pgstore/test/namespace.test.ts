import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { namespaceEncoder } from '../src/namespace.js'

const part = fc.string({
  unit: fc.constantFrom('a', 'b', ':', '1', '0', '\u{1F600}'),
  maxLength: 5,
})

describe('namespaceEncoder', () => {
  it('gives different (prefix, ns) pairs different columns', () => {
    fc.assert(
      fc.property(part, part, part, part, (p1, n1, p2, n2) => {
        fc.pre(p1 !== p2 || n1 !== n2)
        expect(namespaceEncoder(p1)(n1)).not.toBe(namespaceEncoder(p2)(n2))
      }),
      { numRuns: 5000 },
    )
  })

  it('counts the prefix in code points', () => {
    expect(namespaceEncoder('a')('b:c')).toBe('1:ab:c')
    expect(namespaceEncoder('a:b')('c')).toBe('3:a:bc')
    expect(namespaceEncoder('')('checkpoint:g')).toBe('0:checkpoint:g')
    expect(namespaceEncoder('\u{1F600}')('x')).toBe('1:\u{1F600}x')
  })
})
