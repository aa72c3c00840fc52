import fc from 'fast-check'
import { nastyString } from './hostile-values.js'
import { dateTime } from './date-time.js'

/**
 * Cursors a client forged: the base64url JSON Weave's lists issue, holding positions no list
 * ever issued (times outside what Postgres stores, ids that are no UUID, odd numbers), and
 * base64url of arbitrary JSON.
 */
export function forgedCursor(): fc.Arbitrary<string> {
  const time = fc.oneof(
    dateTime(),
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fc.constantFrom(
      '+010000-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      'Tue, 01 Jan 10000 00:00:00 GMT',
      '0000-01-01',
      '2025',
      '1',
      '',
    ),
  )
  const id = fc.oneof(
    fc.uuid(),
    nastyString(),
    fc.constantFrom('pricing', 'a\u0000b', '\u0000', '\uD800', '', 'x'.repeat(300)),
  )
  const number = fc.oneof(
    fc.integer(),
    fc.constantFrom(2 ** 53 - 1, -(2 ** 53 - 1), 0, -1, 2 ** 31, 2 ** 63, 0.5),
  )
  const position = fc.oneof(
    { arbitrary: fc.tuple(time, id), weight: 4 },
    { arbitrary: fc.tuple(number), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
  )
  return position.map((value) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url'))
}
