import { parseArgs } from 'node:util'
import { Scope, TenantId, loadConfig, mintDevToken } from '@weave/api'
import { EXIT, UsageError, type Command } from '../cli-io.js'
import { withDevSecret } from '../dev-secret.js'
import { TOKEN_USAGE } from '../usage.js'

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const
const MAX_TTL_SECONDS = 365 * 86_400

/** `weave token`: prints a development token for a tenant, subject and scopes. */
export const tokenCommand: Command = async (args, io) => {
  const { values } = parseOptions(args)
  if (values.help) {
    io.stdout(TOKEN_USAGE)
    return EXIT.ok
  }
  const tenant = TenantId.safeParse(values.tenant ?? '')
  if (!tenant.success) throw new UsageError(`--tenant ${tenant.error.issues[0]?.message ?? ''}`)
  const subject = values.sub?.trim() ?? ''
  if (subject === '' || subject.length > 256) {
    throw new UsageError('--sub must be 1-256 characters')
  }
  const scopes = parseScopes(values.scope ?? '')
  const ttlSeconds = parseTtl(values.ttl ?? '1h')

  const config = loadConfig(withDevSecret(io.env).env)
  if (config.jwt.key.kind !== 'secret') {
    throw new UsageError(
      'weave token needs WEAVE_JWT_SECRET; this Weave verifies tokens with a public key or JWKS, ' +
        'so tokens come from that issuer',
    )
  }
  const token = await mintDevToken({
    secret: config.jwt.key.secret,
    tenant: tenant.data,
    subject,
    scopes,
    audience: config.jwt.audience,
    expiresIn: ttlSeconds,
    tenantClaim: config.jwt.tenantClaim,
    ...(config.jwt.issuer === undefined ? {} : { issuer: config.jwt.issuer }),
  })
  io.stdout(`${token}\n`)
  return EXIT.ok
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        tenant: { type: 'string' },
        sub: { type: 'string' },
        scope: { type: 'string' },
        ttl: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

function parseScopes(text: string): string[] {
  const scopes = text.split(/\s+/).filter((scope) => scope !== '')
  if (scopes.length === 0) throw new UsageError('--scope needs at least one scope')
  const unknown = scopes.filter((scope) => !Scope.safeParse(scope).success)
  if (unknown.length > 0) {
    throw new UsageError(`unknown scope ${unknown.join(', ')}; known: ${Scope.options.join(' ')}`)
  }
  return [...new Set(scopes)]
}

function parseTtl(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim())
  const unit = (match?.[2] || 's') as keyof typeof UNIT_SECONDS
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[unit] : NaN
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_TTL_SECONDS) {
    throw new UsageError('--ttl must be a duration such as 90s, 15m, 1h or 7d, at most 365d')
  }
  return seconds
}
