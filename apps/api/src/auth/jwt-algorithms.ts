import { createPublicKey, type KeyObject } from 'node:crypto'
import { z } from 'zod'

/** JWS algorithms Weave can be configured to accept; `none` is deliberately absent. */
export const JwtAlgorithm = z.enum([
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
])
/** A JWS algorithm name from {@link JwtAlgorithm}. */
export type JwtAlgorithm = z.infer<typeof JwtAlgorithm>

const HMAC_ALGORITHMS: readonly JwtAlgorithm[] = ['HS256', 'HS384', 'HS512']
const DEFAULT_ASYMMETRIC: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA']

/**
 * The algorithms tokens are accepted with for a key source (`pem` for a public key), or why the
 * configured ones cannot be used.
 */
// An HMAC secret and a public key must never share an algorithm list: that is what makes
// algorithm confusion (an HS256 token "signed" with the public key's PEM) impossible.
export function jwtAlgorithms(
  key: { kind: 'secret' | 'public-key' | 'jwks'; pem?: string },
  configured: JwtAlgorithm[] | undefined,
): JwtAlgorithm[] | string {
  if (key.kind === 'secret') {
    const algorithms = configured ?? ['HS256']
    const wrong = algorithms.filter((alg) => !HMAC_ALGORITHMS.includes(alg))
    return wrong.length === 0
      ? algorithms
      : `${wrong.join(', ')} cannot be used with WEAVE_JWT_SECRET (HS256, HS384 or HS512 only)`
  }
  const wrong = (configured ?? []).filter((alg) => HMAC_ALGORITHMS.includes(alg))
  if (wrong.length > 0) {
    return `${wrong.join(', ')} needs WEAVE_JWT_SECRET; a public key or JWKS takes asymmetric algorithms`
  }
  if (key.kind === 'jwks') return configured ?? [...DEFAULT_ASYMMETRIC]
  const compatible = algorithmsForKey(createPublicKey(key.pem ?? ''))
  if (configured) {
    const unusable = configured.filter((alg) => !compatible.includes(alg))
    return unusable.length === 0
      ? configured
      : `${unusable.join(', ')} cannot be used with this public key (it takes ${compatible.join(', ')})`
  }
  const defaults = DEFAULT_ASYMMETRIC.filter((alg) => compatible.includes(alg))
  return defaults.length > 0 ? defaults : compatible
}

function algorithmsForKey(key: KeyObject): JwtAlgorithm[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']
    case 'rsa-pss':
      return ['PS256', 'PS384', 'PS512']
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve
      if (curve === 'prime256v1') return ['ES256']
      if (curve === 'secp384r1') return ['ES384']
      if (curve === 'secp521r1') return ['ES512']
      return []
    }
    case 'ed25519':
      return ['EdDSA', 'Ed25519']
    default:
      return []
  }
}

/** Why a PEM text cannot verify tokens, or undefined when it is a usable public key. */
export function publicKeyProblem(pem: string): string | undefined {
  if (/PRIVATE KEY/.test(pem)) return 'must be a public key, not a private key'
  let key: KeyObject
  try {
    key = createPublicKey(pem)
  } catch {
    return 'must be a PEM-encoded public key (SPKI "BEGIN PUBLIC KEY")'
  }
  if (algorithmsForKey(key).length === 0) {
    return 'must be an RSA, EC (P-256, P-384, P-521) or Ed25519 public key'
  }
  return undefined
}
