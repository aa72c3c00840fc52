import fc from 'fast-check'

/** Strings that have broken parsers, routers, databases and templates before. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '.',
  '..',
  '../../etc/passwd',
  '%',
  '%00',
  '%zz',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'a\uD83Db',
  '\uDE00\uD83D',
  '\uFEFF',
  '\u202Eevil',
  'e\u0301\u0301\u0301',
  '😀',
  '𝕨𝕖𝕒𝕧𝕖',
  'null',
  'undefined',
  'NaN',
  'true',
  '-1',
  '0',
  '-0',
  '1.5',
  '1e309',
  '0x10',
  '2147483648',
  '9223372036854775808',
  '99999999999999999999999999999',
  '__proto__',
  'constructor',
  'prototype',
  "'; DROP TABLE runs; --",
  "' OR '1'='1",
  '\\',
  '"',
  '{{ 7 * 7 }}',
  '${7*7}',
  '$(id)',
  '<script>alert(1)</script>',
  '\r\nX-Injected: 1',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f1',
  '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11x',
]

/** Any nasty string: the list above, random unicode, control characters, or a long run. */
export function nastyString(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }), weight: 2 },
    { arbitrary: loneSurrogateString(), weight: 1 },
    { arbitrary: longString(150, 5_000), weight: 1 },
  )
}

/** A string with a lone UTF-16 surrogate somewhere in it. */
export function loneSurrogateString(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.string({ maxLength: 8 }),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.string({ maxLength: 8 }),
    )
    .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`)
}

/** A string of `min`–`max` UTF-16 units of one repeated character (ASCII, 2-, 3- or 4-byte). */
export function longString(min: number, max: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min, max }), fc.constantFrom('x', 'é', '€', '😀', '\u0000', '\\', '"'))
    .map(([length, char]) => char.repeat(Math.ceil(length / char.length)))
}

/** A JSON value nested `depth` levels deep, built without recursion. */
export function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf
  for (let level = 0; level < depth; level += 1) {
    value = level % 2 === 0 ? [value] : { a: value }
  }
  return value
}

/** An object whose own keys include the ones prototype pollution uses. */
export function pollutingObject(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      fc.constantFrom('__proto__', 'constructor', 'prototype', '__defineGetter__', 'toString'),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([key, value]) => {
      const object: Record<string, unknown> = {}
      const payload = key === 'constructor' ? { prototype: { polluted: value } } : value
      Object.defineProperty(object, key, { value: payload, enumerable: true })
      return object
    })
}

/** JSON values a careful parser must still survive: deep, huge, polluting, odd numbers. */
export function hostileJsonValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer({ min: 30, max: 2_000 }).map((depth) => nested(depth)),
    pollutingObject(),
    nastyString(),
    fc.dictionary(nastyString(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    fc.array(nastyString(), { maxLength: 5 }),
    fc.constantFrom(-0, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53 + 2, -(2 ** 63), 1e21),
    longString(10_000, 300_000),
  )
}

/** Request body texts that are not the JSON a schema asks for, or not JSON at all. */
export function rawBodyText(): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      'null',
      'true',
      '0',
      '"text"',
      '[]',
      '{}',
      '{',
      '{"a":',
      '}{',
      'not json',
      '{"a":1}{"b":2}',
      '\uFEFF{}',
      '{"a":1,"a":2}',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":1e400}',
      '{"a":-1e400}',
      '{"a":123456789012345678901234567890}',
      '{"a":"\\u0000"}',
      '{"a":"\\ud800"}',
      '{"\\u0000":1}',
      '{"a":NaN}',
      "{'a':1}",
      '{"a":1,}',
      '[1,2,',
    ),
    fc.integer({ min: 100, max: 200_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
    fc
      .integer({ min: 100, max: 100_000 })
      .map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
    fc.integer({ min: 1, max: 50_000 }).map((depth) => '['.repeat(depth)),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d])),
    fc.string({ unit: 'binary', maxLength: 200 }),
  )
}

/** A header value a client could put on the wire: printable ASCII and Latin-1, tabs inside. */
export function headerValue(maxLength = 80): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 8 },
    { arbitrary: fc.integer({ min: 0xa0, max: 0xff }), weight: 1 },
    { arbitrary: fc.constant(0x09), weight: 1 },
  )
  return fc.array(unit, { maxLength }).map((codes) => String.fromCharCode(...codes).trim())
}
