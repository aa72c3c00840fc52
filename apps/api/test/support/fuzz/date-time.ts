import fc from 'fast-check'

/**
 * RFC 3339 times across the whole four-digit range, edges weighted up: year 0000, 0001, 9999,
 * and offsets that push a time past either end once it is converted to UTC.
 */
export function dateTime(): fc.Arbitrary<string> {
  const two = (n: number) => String(n).padStart(2, '0')
  const year = fc.oneof(
    { arbitrary: fc.constantFrom(0, 1, 1969, 1970, 2038, 9999), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 9999 }), weight: 2 },
  )
  const offset = fc.oneof(
    fc.constant('Z'),
    fc
      .tuple(
        fc.constantFrom('+', '-'),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
      )
      .map(([sign, hours, minutes]) => `${sign}${two(hours)}:${two(minutes)}`),
  )
  const fraction = fc.option(
    fc.integer({ min: 0, max: 999_999 }).map((n) => `.${n}`),
    { nil: '' },
  )
  return fc
    .tuple(
      year,
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
      fraction,
      offset,
    )
    .map(
      ([y, mo, d, h, mi, se, frac, off]) =>
        `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(se)}${frac}${off}`,
    )
}
