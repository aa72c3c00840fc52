import { describe, expect, it } from 'vitest'
import { DurationError, parseDuration } from '@weave/spec'

describe('parseDuration', () => {
  it.each([
    ['P2D', 2 * 86_400_000],
    ['PT30M', 30 * 60_000],
    ['P1DT2H', 86_400_000 + 2 * 3_600_000],
    ['P1W', 7 * 86_400_000],
    ['P1W2D', 9 * 86_400_000],
    ['PT1H30M15S', 5_415_000],
    ['PT0.5S', 500],
    ['PT1,5M', 90_000],
    ['PT0S', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it.each(['', 'P', 'PT', '2D', 'P2X', 'P-1D', 'p2d', 'P1.5DT2H', 'PT', 'P1DT'])(
    'refuses %j',
    (text) => {
      expect(() => parseDuration(text)).toThrow(DurationError)
    },
  )

  it('refuses years and months, which have no fixed length', () => {
    expect(() => parseDuration('P1Y')).toThrow(/years have no fixed length/)
    expect(() => parseDuration('P2M')).toThrow(/months have no fixed length/)
  })
})
