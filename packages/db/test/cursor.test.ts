import { describe, expect, it } from 'vitest'
import { DEFAULT_LIMIT, MAX_LIMIT, pageSize } from '@weave/db'
import { decodeCursor, decodeTimeCursor, encodeCursor, toPage } from '../src/cursor.js'

describe('cursors', () => {
  it('round-trips a position', () => {
    const cursor = encodeCursor(['2025-01-01T00:00:00.000Z', 'id'])
    expect(decodeTimeCursor(cursor)).toEqual({ at: '2025-01-01T00:00:00.000Z', id: 'id' })
    expect(decodeCursor(encodeCursor([42]), ['number'] as const)).toEqual([42])
  })

  it('refuses cursors it did not make', () => {
    const beyondPostgres = ['0000-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z']
    for (const bad of [
      '',
      '!!',
      encodeCursor([1]),
      encodeCursor(['not a time', 'x']),
      ...beyondPostgres.map((at) => encodeCursor([at, 'x'])),
    ]) {
      expect(() => decodeTimeCursor(bad)).toThrow(
        expect.objectContaining({ code: 'invalid-cursor' }),
      )
    }
    expect(() => decodeCursor(encodeCursor([1.5]), ['number'] as const)).toThrow()
    expect(() =>
      decodeTimeCursor(encodeCursor(['2025-01-01T00:00:00Z', 'x']), () => false),
    ).toThrow()
  })

  it('clamps page sizes', () => {
    expect(pageSize(undefined)).toBe(DEFAULT_LIMIT)
    expect(pageSize(0)).toBe(1)
    expect(pageSize(10_000)).toBe(MAX_LIMIT)
    expect(pageSize(Number.NaN)).toBe(DEFAULT_LIMIT)
  })

  it('gives a next cursor only when there is more', () => {
    expect(toPage([1, 2], 2, (n) => [n])).toEqual({ items: [1, 2], nextCursor: null })
    const page = toPage([1, 2, 3], 2, (n) => [n])
    expect(page.items).toEqual([1, 2])
    expect(decodeCursor(page.nextCursor as string, ['number'] as const)).toEqual([2])
  })
})
