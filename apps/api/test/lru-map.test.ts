import { describe, expect, it } from 'vitest'
import { LruMap } from '../src/services/lru-map.js'

describe('LruMap', () => {
  it('drops the least recently read or set entry beyond its capacity', () => {
    const map = new LruMap<string, number>(2)
    map.set('a', 1)
    map.set('b', 2)
    expect(map.get('a')).toBe(1)
    map.set('c', 3)
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([1, undefined, 3, 2])
    map.delete('a')
    expect([map.get('a'), map.size]).toEqual([undefined, 1])
  })

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LruMap(0)).toThrow(RangeError)
  })
})
