import fc from 'fast-check'
import { headerValue } from './hostile-values.js'

/** Bearer tokens the fuzzer sends. */
export interface FuzzTokens {
  /** The seeded tenant, every scope: most requests carry it. */
  all: string
  /** Another tenant, every scope: sees none of the seeded rows. */
  otherTenant: string
  /** The seeded tenant, no scope. */
  noScopes: string
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json;charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json; foo=bar',
  'application/json;',
  'application/jsonx',
  'application/problem+json',
  'application/vnd.api+json',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '*/*',
  ';',
  'application/json, text/plain',
]

/** Numbers as text, in and around every range a path or query number has. */
export const NUMERIC_TEXT = [
  '0',
  '1',
  '2',
  '3',
  '-1',
  '01',
  '+1',
  '1.0',
  '1e3',
  '0x1',
  '2147483647',
  '2147483648',
  '9007199254740993',
  '99999999999999999999',
  'Infinity',
  'NaN',
]

/** Percent-encodes everything but RFC 3986 unreserved characters (lone surrogates as U+FFFD). */
export function percentEncode(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-._~]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Content-Type headers: mostly JSON, then its variants, garbage, and none. */
export function contentType(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 6 },
    { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 4 },
    { arbitrary: headerValue(40), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 2 },
  )
}

/** Authorization headers: mostly the full-scope token, then none, others' and broken ones. */
export function authorization(tokens: FuzzTokens): fc.Arbitrary<string | undefined> {
  const garbage = fc.oneof(
    headerValue(),
    headerValue(200).map((value) => `Bearer ${value}`),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      `bearer ${tokens.all}`,
      `Bearer  ${tokens.all} `,
      `Bearer ${tokens.all}x`,
      `Bearer ${tokens.all.slice(0, -3)}`,
      `Bearer ${tokens.all} ${tokens.all}`,
      'Bearer a.b.c',
      'Bearer eyJhbGciOiJub25lIn0.eyJ0aWQiOiJ4Iiwic3ViIjoieCJ9.',
      `Bearer ${'a'.repeat(20_000)}`,
    ),
  )
  return fc.oneof(
    { arbitrary: fc.constant(`Bearer ${tokens.all}`), weight: 34 },
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: fc.constant(`Bearer ${tokens.otherTenant}`), weight: 2 },
    { arbitrary: fc.constant(`Bearer ${tokens.noScopes}`), weight: 1 },
    { arbitrary: garbage, weight: 2 },
  )
}

/** Idempotency-Key, X-Request-Id, Accept and friends; well-formed ones only when `isClean`. */
export function extraHeaders(isClean: boolean): fc.Arbitrary<Record<string, string>> {
  if (isClean) {
    return fc
      .record(
        {
          // A few fixed keys recur, so a key comes back with another body (409) or the same (200).
          'idempotency-key': fc.oneof(fc.uuid(), fc.constantFrom('fuzz-key-1', 'fuzz-key-2')),
          'x-request-id': fc.uuid(),
        },
        { requiredKeys: [] },
      )
      .map((headers) =>
        Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)),
      )
  }
  return fc
    .record(
      {
        'idempotency-key': fc.oneof(headerValue(300), fc.uuid()),
        'x-request-id': fc.oneof(headerValue(200), fc.uuid()),
        accept: fc.oneof(
          fc.constantFrom(
            'application/json',
            'text/event-stream',
            '*/*',
            'text/html',
            'application/xml',
          ),
          headerValue(30),
        ),
        'last-event-id': fc.oneof(fc.constantFrom(...NUMERIC_TEXT), headerValue(30)),
        'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
      },
      { requiredKeys: [] },
    )
    .map((headers) =>
      Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)),
    )
}

/** A generated scalar as query or path text; objects and arrays as their JSON. */
export function scalarText(arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return arbitrary.map((value) =>
    typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value),
  )
}
