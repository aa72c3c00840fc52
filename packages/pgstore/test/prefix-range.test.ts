import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { prefixUpperBound } from '../src/prefix-range.js'

// Characters near the edges the bound has to step over: U+D7FF/U+E000 around the surrogates,
// U+FFFF/U+10000 around the BMP, U+10FFFF at the top, and a few ordinary ones.
const edgeChar = fc.constantFrom(
  'a',
  'b',
  '\u00FF',
  '\uD7FF',
  '\uE000',
  '\uFFFF',
  '\u{10000}',
  '\u{10FFFF}',
)
const text = fc
  .array(fc.oneof(edgeChar, fc.string({ unit: 'grapheme', maxLength: 1 })), {
    maxLength: 4,
  })
  .map((chars) => chars.join(''))

/** Code point order, as Postgres compares text under COLLATE "C" (UTF-8 bytes). */
function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/** What `key >= prefix AND key < upper` selects, compared by code point as Postgres "C" does. */
function inRange(key: string, prefix: string): boolean {
  const upper = prefixUpperBound(prefix)
  return (
    compareCodePoints(key, prefix) >= 0 &&
    (upper === undefined || compareCodePoints(key, upper) < 0)
  )
}

describe('prefixUpperBound', () => {
  it('selects exactly the keys starting with the prefix', () => {
    fc.assert(
      fc.property(text, text, (prefix, rest) => {
        expect(inRange(prefix + rest, prefix)).toBe(true)
      }),
    )
    fc.assert(
      fc.property(text, text, (prefix, key) => {
        expect(inRange(key, prefix)).toBe(key.startsWith(prefix))
      }),
      { numRuns: 2000 },
    )
  })

  it('steps over the surrogates and drops trailing U+10FFFF', () => {
    expect(prefixUpperBound('a')).toBe('b')
    expect(prefixUpperBound('x\uD7FF')).toBe('x\uE000')
    expect(prefixUpperBound('a\u{10FFFF}\u{10FFFF}')).toBe('b')
    expect(prefixUpperBound('\u{FFFF}')).toBe('\u{10000}')
    expect(prefixUpperBound('')).toBeUndefined()
    expect(prefixUpperBound('\u{10FFFF}')).toBeUndefined()
  })
})
