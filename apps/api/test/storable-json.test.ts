import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, storableJsonProblem, textProblem } from '../src/schemas/storable-json.js'

describe('storableJsonProblem', () => {
  it('accepts ordinary JSON, surrogate pairs included', () => {
    expect(storableJsonProblem({ a: [1, 'x', null, true, { ключ: '😀' }] })).toBeUndefined()
  })

  it.each([
    ['a NUL in a string', { a: 'x\u0000' }, 'NUL'],
    ['a NUL in a key', { 'k\u0000': 1 }, 'NUL'],
    ['a lone high surrogate', ['\ud800'], 'surrogate'],
    ['a lone low surrogate', { a: 'x\udc00y' }, 'surrogate'],
    ['an infinite number', { n: Number.POSITIVE_INFINITY }, 'double range'],
  ])('refuses %s', (_name, value, word) => {
    expect(storableJsonProblem(value)).toContain(word)
  })

  it('refuses nesting deeper than the limit without recursing', () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i += 1) deep = [deep]
    expect(storableJsonProblem(deep)).toContain(String(MAX_JSON_DEPTH))
    let fine: unknown = 1
    for (let i = 0; i < MAX_JSON_DEPTH; i += 1) fine = { a: fine }
    expect(storableJsonProblem(fine)).toBeUndefined()
  })

  it('checks text the same way', () => {
    expect(textProblem('fine')).toBeUndefined()
    expect(textProblem('\ud83d')).toContain('surrogate')
  })
})
