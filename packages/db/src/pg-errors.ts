/** The SQLSTATE of a pg error, also when drizzle wrapped it (its `cause`); undefined otherwise. */
export function pgCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
  }
  return undefined
}

// Class 08 (connection exception), 57P01-57P03 (the server is shutting down, crashed or not yet
// accepting connections) and 53300 (too many connections): the database is away, not the query.
const UNAVAILABLE_CODES = /^(08...|57P0[123]|53300)$/

/**
 * Node's socket error codes that say a server could not be reached or the connection was lost,
 * not that it refused what was asked (Postgres here; the CLI's start-up check uses them for
 * Redis too).
 */
export const UNREACHABLE_SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

// What pg says when a connection dies without a SQLSTATE.
const LOST_CONNECTION =
  /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed/i

/**
 * True when `err` (or one of its causes) says Postgres could not be reached or the connection
 * was lost, rather than that a statement was refused: callers answer 503 or retry later.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_CODES.test(code) || UNREACHABLE_SOCKET_CODES.has(code))
    ) {
      return true
    }
    const message = (e as { message?: unknown }).message
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) {
      return true
    }
  }
  return false
}

/**
 * What to log about a pooled connection's error: its message and code, without the stack. A
 * Postgres restart fails every pooled connection at once, and one line each says enough.
 */
export function connectionErrorFields(err: Error): { message: string; code?: string } {
  const code = (err as { code?: unknown }).code
  return typeof code === 'string' ? { message: err.message, code } : { message: err.message }
}
