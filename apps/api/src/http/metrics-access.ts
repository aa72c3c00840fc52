import { createHash, timingSafeEqual } from 'node:crypto'
import { UnauthorizedError } from './app-errors.js'

/**
 * Whether an `Authorization` header is `Bearer <token>`. Both sides are hashed first, so the
 * comparison takes the same time whatever the header holds and reveals not even the length.
 */
export function hasMetricsToken(header: string | undefined, token: string): boolean {
  const presented = header === undefined ? undefined : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  const isEqual = timingSafeEqual(digest(presented?.[1] ?? ''), digest(token))
  return isEqual && presented !== undefined && presented !== null
}

/** The 401 (to throw or render) for a scrape without the metrics token. */
export function metricsUnauthorized(header: string | undefined): UnauthorizedError {
  return new UnauthorizedError('Metrics need the bearer token set in WEAVE_METRICS_TOKEN.', {
    challenge: header === undefined ? 'missing-token' : 'invalid-token',
  })
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}
