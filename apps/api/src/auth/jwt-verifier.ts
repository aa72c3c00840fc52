import { createPublicKey } from 'node:crypto'
import { errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose'
import type { Logger } from 'pino'
import type { JwtConfig } from '../config.js'
import { AppError, ServiceUnavailableError, UnauthorizedError } from '../http/app-errors.js'
import { textProblem } from '../schemas/storable-json.js'
import { TenantId, type Principal } from './principal.js'
import { createRemoteKeySet, type RemoteKeySetOptions } from './remote-key-set.js'
import { VerifiedTokens } from './verified-tokens.js'

/** Verifies bearer tokens and turns them into principals. */
export interface JwtVerifier {
  /**
   * The principal a token stands for.
   * @throws {UnauthorizedError} when the token is malformed, unsigned, expired or not for Weave
   * @throws {ServiceUnavailableError} when the JWKS endpoint cannot be reached
   */
  verify(token: string): Promise<Principal>
}

// Far above any real JWT; bounds the work an unauthenticated caller can ask for.
const MAX_TOKEN_LENGTH = 8192
const MAX_SUBJECT_LENGTH = 256

/** Options of {@link createJwtVerifier} beyond the configuration. */
export interface JwtVerifierOptions {
  /** Where a failed JWKS fetch is reported. */
  log?: Pick<Logger, 'warn'>
  /** JWKS fetch timing (cooldowns, clock); the defaults suit production. */
  keySet?: Omit<RemoteKeySetOptions, 'url' | 'log'>
  /** The clock tokens are checked against, in milliseconds (default `Date.now`). */
  now?: () => number
}

/**
 * A verifier for the configured key source. It never connects at construction: a JWKS is fetched
 * on the first verification and cached (see createRemoteKeySet for how often it is fetched).
 * @throws {Error} for a public key or JWKS without an issuer (loadConfig refuses that already)
 */
export function createJwtVerifier(
  jwt: JwtConfig,
  verifierOptions: JwtVerifierOptions = {},
): JwtVerifier {
  // Keys an identity provider shares with other services must be pinned to its issuer.
  if (jwt.key.kind !== 'secret' && jwt.issuer === undefined) {
    throw new Error('a public key or JWKS needs an issuer (WEAVE_JWT_ISSUER)')
  }
  const key =
    jwt.key.kind === 'secret'
      ? new TextEncoder().encode(jwt.key.secret)
      : jwt.key.kind === 'public-key'
        ? createPublicKey(jwt.key.pem)
        : createRemoteKeySet({
            ...verifierOptions.keySet,
            url: new URL(jwt.key.url),
            ...(verifierOptions.log ? { log: verifierOptions.log } : {}),
          })
  // The allow-list is never empty and never mixes HMAC with public-key algorithms (config.ts),
  // so `none` and algorithm confusion are refused by jose before any signature check.
  const now = verifierOptions.now ?? Date.now
  const options: Omit<JWTVerifyOptions, 'currentDate'> = {
    algorithms: [...jwt.algorithms],
    audience: jwt.audience,
    requiredClaims: ['exp', 'sub', jwt.tenantClaim],
    clockTolerance: jwt.clockSkewSeconds,
    ...(jwt.issuer === undefined ? {} : { issuer: jwt.issuer }),
  }
  // Tokens whose checks passed, so a token sent again is not verified on every request.
  const verified = new VerifiedTokens(now, jwt.clockSkewSeconds * 1000)
  return {
    async verify(token) {
      if (token.length > MAX_TOKEN_LENGTH) throw new UnauthorizedError('The token is too long.')
      const known = verified.get(token)
      if (known) return known
      let payload: JWTPayload
      try {
        ;({ payload } = await jwtVerify(token, key, { ...options, currentDate: new Date(now()) }))
      } catch (error) {
        throw verificationError(error, jwt.key.kind === 'jwks')
      }
      const principal = principalFrom(payload, jwt.tenantClaim)
      verified.set(token, principal)
      return principal
    },
  }
}

function principalFrom(payload: JWTPayload, tenantClaim: string): Principal {
  const tenant = TenantId.safeParse(payload[tenantClaim])
  if (!tenant.success) {
    throw new UnauthorizedError(`The token's "${tenantClaim}" claim is not a valid tenant id.`)
  }
  const subject = payload.sub
  // The subject is stored as the actor of audit events and decisions: Postgres must take it.
  if (
    typeof subject !== 'string' ||
    subject === '' ||
    subject.length > MAX_SUBJECT_LENGTH ||
    textProblem(subject) !== undefined
  ) {
    throw new UnauthorizedError('The token\'s "sub" claim is not a valid subject.')
  }
  const principal: Principal = { tenant: tenant.data, subject, scopes: scopesFrom(payload.scope) }
  if (typeof payload.jti === 'string') principal.tokenId = payload.jti
  if (typeof payload.exp === 'number') {
    const expiresAt = new Date(payload.exp * 1000)
    // Past year 275760 a Date is invalid: nothing that ends the token's use could be timed.
    if (Number.isNaN(expiresAt.getTime())) {
      throw new UnauthorizedError('The token\'s "exp" claim is past any time Weave can hold.')
    }
    principal.expiresAt = expiresAt
  }
  return principal
}

// `scope` is space-separated (RFC 8693); some issuers send a list instead.
function scopesFrom(claim: unknown): ReadonlySet<string> {
  if (claim === undefined) return new Set()
  if (typeof claim === 'string') return new Set(claim.split(/\s+/).filter((scope) => scope !== ''))
  if (Array.isArray(claim) && claim.every((scope) => typeof scope === 'string')) {
    return new Set(claim)
  }
  throw new UnauthorizedError('The token\'s "scope" claim is not a list of scopes.')
}

function verificationError(error: unknown, isJwks: boolean): Error {
  // The key set's own answer (503 before any key set was fetched) is already an API error.
  if (error instanceof AppError) return error
  // jose raises its generic error for a JWKS answer that is not 200 or not JSON.
  const isKeySetFailure =
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    (isJwks && error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')
  if (isKeySetFailure) return unavailable(error)
  if (error instanceof errors.JWTExpired) {
    return new UnauthorizedError('The token has expired.', { cause: error })
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    const detail =
      error.reason === 'missing'
        ? `The token has no "${error.claim}" claim.`
        : `The token's "${error.claim}" claim is not accepted.`
    return new UnauthorizedError(detail, { cause: error })
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new UnauthorizedError("The token's algorithm is not accepted.", { cause: error })
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new UnauthorizedError('The token signature is invalid.', { cause: error })
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new UnauthorizedError('No known key matches the token.', { cause: error })
  }
  if (error instanceof errors.JOSEError) {
    return new UnauthorizedError('The token is malformed.', { cause: error })
  }
  // Outside jose's own errors only the JWKS fetch can fail (network, HTTP status, bad JSON).
  if (isJwks) return unavailable(error)
  return new UnauthorizedError('The token is invalid.', { cause: error })
}

function unavailable(cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError("The token issuer's key set could not be fetched.", {
    retryAfterSeconds: 5,
    cause,
  })
}
