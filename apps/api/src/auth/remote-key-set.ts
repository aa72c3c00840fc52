import {
  createLocalJWKSet,
  errors,
  type CompactJWSHeaderParameters,
  type CryptoKey,
  type FlattenedJWSInput,
  type JSONWebKeySet,
} from 'jose'
import type { Logger } from 'pino'
import { ServiceUnavailableError } from '../http/app-errors.js'

/** Options of {@link createRemoteKeySet}. */
export interface RemoteKeySetOptions {
  url: URL
  /** After a successful fetch, how long until a token with an unknown `kid` may fetch again. */
  cooldownMs?: number
  /** After a failed fetch, how long until the next attempt. */
  retryMs?: number
  /** How long keys are used before they are fetched again (kept if that fetch fails). */
  maxAgeMs?: number
  timeoutMs?: number
  /** The largest key set document read. */
  maxBytes?: number
  /** Milliseconds since the epoch; `Date.now` unless a test drives the clock. */
  now?: () => number
  /** Where failed fetches are reported, at most one line per attempt. */
  log?: Pick<Logger, 'warn'>
}

/** The key resolver `jwtVerify` calls with each token's protected header. */
export type RemoteKeySet = (
  header: CompactJWSHeaderParameters,
  token: FlattenedJWSInput,
) => Promise<CryptoKey>

/**
 * A JWKS fetched over HTTP, with a bound on fetches that no stream of tokens can break: at most
 * one fetch is in flight, and a new one starts only after `cooldownMs` since a successful fetch
 * or `retryMs` since a failed one (jose's own remote set retries after every failure, so an
 * outage turned each forged token into a fetch). A token whose key is not in hand fails as
 * JWKSNoMatchingKey (401) once keys were ever fetched; the set being unreachable is a
 * ServiceUnavailableError (503) only until the first successful fetch (auth.test.ts, the
 * JWKS tests).
 */
export function createRemoteKeySet(options: RemoteKeySetOptions): RemoteKeySet {
  const now = options.now ?? Date.now
  const cooldownMs = options.cooldownMs ?? 30_000
  const retryMs = options.retryMs ?? 5_000
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000
  let keys: ReturnType<typeof createLocalJWKSet> | undefined
  let fetchedAt = -Infinity
  let nextAttemptAt = -Infinity
  let pending: Promise<void> | undefined

  const refresh = (): Promise<void> => {
    pending ??= (async () => {
      try {
        const set = await fetchKeySet(options.url, options.timeoutMs ?? 5_000, options.maxBytes)
        keys = createLocalJWKSet(set)
        fetchedAt = now()
        nextAttemptAt = fetchedAt + cooldownMs
      } catch (err) {
        nextAttemptAt = now() + retryMs
        options.log?.warn({ err, url: options.url.origin }, 'JWKS fetch failed')
      } finally {
        pending = undefined
      }
    })()
    return pending
  }
  const mayFetch = () => now() >= nextAttemptAt

  return async (header, token) => {
    if (pending) await pending
    else if ((keys === undefined || now() - fetchedAt >= maxAgeMs) && mayFetch()) await refresh()
    if (keys === undefined) {
      throw new ServiceUnavailableError("The token issuer's key set could not be fetched.", {
        retryAfterSeconds: Math.max(1, (nextAttemptAt - now()) / 1000),
      })
    }
    try {
      return await keys(header, token)
    } catch (error) {
      // A key rotated in since the last fetch; otherwise the token names a key nobody has.
      if (!(error instanceof errors.JWKSNoMatchingKey) || !mayFetch()) throw error
      await refresh()
      return keys(header, token)
    }
  }
}

async function fetchKeySet(url: URL, timeoutMs: number, maxBytes = 512 * 1024) {
  // Like jose: no redirects, only a 200 JSON document counts.
  const response = await fetch(url, {
    headers: { accept: 'application/json, application/jwk-set+json' },
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  })
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel()
    throw new Error(`the key set answered ${response.status}`)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += (chunk as Uint8Array).byteLength
    if (size > maxBytes) throw new Error(`the key set is larger than ${maxBytes} bytes`)
    chunks.push(Buffer.from(chunk as Uint8Array))
  }
  const set: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  if (typeof set !== 'object' || set === null || !Array.isArray((set as JSONWebKeySet).keys)) {
    throw new errors.JWKSInvalid('JSON Web Key Set malformed')
  }
  return set as JSONWebKeySet
}
