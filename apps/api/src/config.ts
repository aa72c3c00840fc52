import { createPublicKey, type KeyObject } from 'node:crypto'
import { deriveSecretsKey, parseSecretsKey } from '@weave/db'
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
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
const MIN_SECRET_BYTES = 32
const KEY_SOURCE_VARIABLES = {
  secret: 'WEAVE_JWT_SECRET',
  'public-key': 'WEAVE_JWT_PUBLIC_KEY',
  jwks: 'WEAVE_JWT_JWKS_URL',
} as const

const list = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()))
  .transform((items) => items.filter((item) => item !== ''))

const SecretsKey = z.string().transform((text, ctx) => {
  try {
    return parseSecretsKey(text)
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: text })
    return z.NEVER
  }
})

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })
    .default('postgres://postgres@127.0.0.1:5432/weave'),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })
    .default('redis://127.0.0.1:6379'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  WEAVE_JWT_SECRET: z
    .string()
    .refine((secret) => Buffer.byteLength(secret, 'utf8') >= MIN_SECRET_BYTES, {
      error: `must be at least ${MIN_SECRET_BYTES} bytes`,
    })
    .optional(),
  // Process managers often flatten a PEM onto one line with literal "\n".
  WEAVE_JWT_PUBLIC_KEY: z
    .string()
    .transform((pem) => pem.replaceAll('\\n', '\n'))
    .check((ctx) => {
      const problem = publicKeyProblem(ctx.value)
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value })
    })
    .optional(),
  WEAVE_JWT_JWKS_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  WEAVE_JWT_ISSUER: z.string().optional(),
  WEAVE_JWT_AUDIENCE: z.string().default('weave'),
  WEAVE_JWT_ALGORITHMS: list.pipe(z.array(JwtAlgorithm).min(1)).optional(),
  WEAVE_JWT_TENANT_CLAIM: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_.:/-]{0,99}$/, 'must be a claim name')
    .default('tid'),
  WEAVE_JWT_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  WEAVE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  WEAVE_HTTP_ALLOW: list.default([]),
  WEAVE_HANDLERS: list.default([]),
  WEAVE_LLM_BASE_URL: z.url().optional(),
  WEAVE_LLM_API_KEY: z.string().optional(),
  WEAVE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  WEAVE_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ -')
    .default('weave'),
  // 0 turns the limiter off.
  WEAVE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  NODE_ENV: z.string().optional(),
  // Encrypts webhook signing secrets; outside production it is derived from WEAVE_JWT_SECRET
  // when unset, so the API and the workers of a development setup agree without it.
  WEAVE_SECRETS_KEY: SecretsKey.optional(),
  WEAVE_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  // A safety net only: LISTEN/NOTIFY wakes streams as soon as an event commits.
  WEAVE_SSE_POLL_MS: z.coerce.number().int().min(50).max(300_000).default(5_000),
  WEAVE_SSE_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1_000),
})

type Env = z.infer<typeof Env>

const Config = Env.transform((env, ctx) => {
  const sources = jwtKeySources(env)
  const key = sources[0]
  if (!key || sources.length > 1) {
    const found = sources.map((source) => KEY_SOURCE_VARIABLES[source.kind]).join(' and ')
    ctx.issues.push({
      code: 'custom',
      message:
        (found ? `${found} are both set; ` : '') +
        'set exactly one of WEAVE_JWT_SECRET (HS256, development; `weave token` needs it), ' +
        'WEAVE_JWT_PUBLIC_KEY (PEM) or WEAVE_JWT_JWKS_URL',
      path: [key ? KEY_SOURCE_VARIABLES[key.kind] : 'WEAVE_JWT_SECRET'],
      input: undefined,
    })
    return z.NEVER
  }
  const algorithms = jwtAlgorithms(key, env.WEAVE_JWT_ALGORITHMS)
  if (typeof algorithms === 'string') {
    ctx.issues.push({
      code: 'custom',
      message: algorithms,
      path: ['WEAVE_JWT_ALGORITHMS'],
      input: env.WEAVE_JWT_ALGORITHMS,
    })
    return z.NEVER
  }
  return {
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    logLevel: env.LOG_LEVEL,
    jwt: {
      key,
      issuer: env.WEAVE_JWT_ISSUER,
      audience: env.WEAVE_JWT_AUDIENCE,
      algorithms,
      tenantClaim: env.WEAVE_JWT_TENANT_CLAIM,
      clockSkewSeconds: env.WEAVE_JWT_CLOCK_SKEW_SECONDS,
    },
    bodyLimitBytes: env.WEAVE_BODY_LIMIT_BYTES,
    httpAllow: env.WEAVE_HTTP_ALLOW,
    handlers: env.WEAVE_HANDLERS,
    llm: { baseUrl: env.WEAVE_LLM_BASE_URL, apiKey: env.WEAVE_LLM_API_KEY },
    workerConcurrency: env.WEAVE_WORKER_CONCURRENCY,
    queuePrefix: env.WEAVE_QUEUE_PREFIX,
    rateLimitPerMinute: env.WEAVE_RATE_LIMIT_PER_MINUTE,
    secretsKey: secretsKeyOf(env, key),
    sse: {
      heartbeatMs: env.WEAVE_SSE_HEARTBEAT_MS,
      pollMs: env.WEAVE_SSE_POLL_MS,
      maxStreams: env.WEAVE_SSE_MAX_STREAMS,
    },
  }
})

/** Weave's validated configuration, shared by the API, the worker (as options) and the CLI. */
export type Config = z.infer<typeof Config>
/** Where JWT verification keys come from, and with which algorithms tokens are accepted. */
export type JwtConfig = Config['jwt']
/** The one configured source of JWT verification keys. */
export type JwtKeySource =
  | { kind: 'secret'; secret: string }
  | { kind: 'public-key'; pem: string }
  | { kind: 'jwks'; url: string }

/** The environment does not describe a valid configuration; `message` lists every problem. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * Reads and validates Weave's configuration from environment variables (empty values count as
 * unset).
 * @throws {ConfigError} when a variable is invalid or no single JWT key source is configured
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''),
  )
  const parsed = Config.safeParse(present)
  if (!parsed.success) {
    throw new ConfigError(`invalid environment\n${z.prettifyError(parsed.error)}`)
  }
  return parsed.data
}

// Without a key (production without WEAVE_SECRETS_KEY, or a public-key JWT setup) the API
// refuses to register webhooks (503) rather than store a secret it could not protect.
function secretsKeyOf(env: Env, jwtKey: JwtKeySource): Buffer | undefined {
  if (env.WEAVE_SECRETS_KEY) return env.WEAVE_SECRETS_KEY
  if (env.NODE_ENV === 'production' || jwtKey.kind !== 'secret') return undefined
  return deriveSecretsKey(jwtKey.secret)
}

function jwtKeySources(env: Env): JwtKeySource[] {
  const sources: JwtKeySource[] = []
  if (env.WEAVE_JWT_SECRET !== undefined) {
    sources.push({ kind: 'secret', secret: env.WEAVE_JWT_SECRET })
  }
  if (env.WEAVE_JWT_PUBLIC_KEY !== undefined) {
    sources.push({ kind: 'public-key', pem: env.WEAVE_JWT_PUBLIC_KEY })
  }
  if (env.WEAVE_JWT_JWKS_URL !== undefined) {
    sources.push({ kind: 'jwks', url: env.WEAVE_JWT_JWKS_URL })
  }
  return sources
}

// An HMAC secret and a public key must never share an algorithm list: that is what makes
// algorithm confusion (an HS256 token "signed" with the public key's PEM) impossible.
function jwtAlgorithms(
  key: JwtKeySource,
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
  const compatible = algorithmsForKey(createPublicKey(key.pem))
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

function publicKeyProblem(pem: string): string | undefined {
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
