import type { Principal } from './principal.js'

/** How long a verified token is answered from memory before its signature is checked again. */
export const VERIFIED_TOKEN_TTL_MS = 60_000

/** How many verified tokens are kept; the oldest is dropped first. */
export const MAX_VERIFIED_TOKENS = 1000

interface Entry {
  principal: Principal
  /** Until when the entry answers: its token's expiry (plus the clock skew) or the TTL, earlier. */
  until: number
}

/**
 * Principals of tokens already verified, keyed by the whole token (header, claims and signature),
 * so a client sending the same bearer token on every request pays one signature check a minute
 * instead of one per request: an HMAC through WebCrypto was a tenth of the API's CPU in bench/e2e.
 * Only a successful verification is kept, an entry never outlives its token's `exp`, and each
 * answer is a copy, so a caller cannot change what the next request sees.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly now: () => number,
    private readonly clockSkewMs: number,
  ) {}

  get(token: string): Principal | undefined {
    const entry = this.entries.get(token)
    if (!entry) return undefined
    if (this.now() >= entry.until) {
      this.entries.delete(token)
      return undefined
    }
    return { ...entry.principal }
  }

  set(token: string, principal: Principal): void {
    const ttlEnd = this.now() + VERIFIED_TOKEN_TTL_MS
    const expiry = principal.expiresAt
      ? principal.expiresAt.getTime() + this.clockSkewMs
      : Number.NEGATIVE_INFINITY
    const until = Math.min(ttlEnd, expiry)
    if (until <= this.now()) return
    if (this.entries.size >= MAX_VERIFIED_TOKENS) {
      const oldest = this.entries.keys().next()
      if (!oldest.done) this.entries.delete(oldest.value)
    }
    this.entries.set(token, { principal: { ...principal }, until })
  }
}
