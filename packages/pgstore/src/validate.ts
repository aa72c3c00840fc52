// In a regex with the u flag, [\uD800-\uDFFF] matches only surrogates that are not part of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/
// Postgres truncates longer identifiers, so two long names could silently meet.
const MAX_IDENTIFIER_LENGTH = 63

/**
 * Asserts that `value` is a string Postgres `text` can hold exactly: no NUL (text cannot store it)
 * and no lone surrogate (UTF-8 cannot encode it; pg would send U+FFFD and address another key).
 * @throws TypeError naming `what` when it is not
 */
export function assertText(what: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new TypeError(`store ${what} must be a string, got ${typeof value}`)
  }
  if (value.includes('\0')) {
    throw new TypeError(
      `store ${what} contains a NUL character (U+0000), which Postgres text cannot store`,
    )
  }
  if (LONE_SURROGATE.test(value)) {
    throw new TypeError(`store ${what} contains a lone UTF-16 surrogate, which UTF-8 cannot encode`)
  }
}

/**
 * Asserts that `name` is a plain lower-case SQL identifier (interpolated into SQL, so checked here).
 * @throws TypeError when it is not
 */
export function assertIdentifier(
  what: string,
  name: unknown,
  maxLength = MAX_IDENTIFIER_LENGTH,
): asserts name is string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name) || name.length > maxLength) {
    throw new TypeError(
      `${what} must match /^[a-z_][a-z0-9_]*$/ and be at most ${maxLength} characters, got ${JSON.stringify(name)}`,
    )
  }
}
