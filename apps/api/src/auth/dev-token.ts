import { randomUUID } from 'node:crypto'
import { SignJWT } from 'jose'

/** What a development token says. */
export interface DevTokenOptions {
  /** The HS256 secret (WEAVE_JWT_SECRET). */
  secret: string
  tenant: string
  subject: string
  scopes: readonly string[]
  issuer?: string
  audience: string
  /** Lifetime: seconds, or a jose time span such as `'1h'` or `'30m'`. */
  expiresIn: number | string
  /** The tenant claim's name (WEAVE_JWT_TENANT_CLAIM); `tid` by default. */
  tenantClaim?: string
}

/** Mints an HS256 token that a Weave configured with the same secret accepts; for development. */
export async function mintDevToken(options: DevTokenOptions): Promise<string> {
  const jwt = new SignJWT({
    [options.tenantClaim ?? 'tid']: options.tenant,
    scope: options.scopes.join(' '),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.subject)
    .setAudience(options.audience)
    .setIssuedAt()
    .setJti(randomUUID())
    .setExpirationTime(
      typeof options.expiresIn === 'number' ? `${options.expiresIn}s` : options.expiresIn,
    )
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer)
  return jwt.sign(new TextEncoder().encode(options.secret))
}
