import { isDatabaseUnavailable, UNREACHABLE_SOCKET_CODES } from '@weave/db'

/** A service Weave cannot work without. */
export type Dependency = 'postgres' | 'redis'

// What ioredis says when a command cannot be sent or answered because the connection is gone.
const LOST_CONNECTION =
  /Connection is closed|Stream isn't writeable|max retries per request|Command timed out|Socket closed unexpectedly/i

/**
 * True when `err` (or one of its causes) says Redis could not be reached or the connection was
 * lost, rather than that Redis refused a command: the caller reports an outage, not a fault.
 */
export function isRedisUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && UNREACHABLE_SOCKET_CODES.has(code)) return true
    const message = (e as { message?: unknown }).message
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true
    if (e instanceof AggregateError && e.errors.some((inner) => isRedisUnavailable(inner))) {
      return true
    }
  }
  return false
}

/**
 * The dependencies `err` says may be away: Postgres, Redis, both when a bare socket error does
 * not tell which (a probe settles it), or none when the error is about something else.
 */
export function dependenciesBehind(err: unknown): Dependency[] {
  const found: Dependency[] = []
  if (isDatabaseUnavailable(err)) found.push('postgres')
  if (isRedisUnavailable(err)) found.push('redis')
  return found
}
