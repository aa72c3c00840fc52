import {
  auditSigningKeyOf,
  databaseUrlsOf,
  HttpUrl,
  List,
  OnOff,
  otlpTracesUrlOf,
  Port,
  secretsKeyOf,
  SharedEnv,
  withoutEmptyValues,
} from '@weave/config'
import { z } from 'zod'
import { JwtAlgorithm, jwtAlgorithms, publicKeyProblem } from './auth/jwt-algorithms.js'
import { TrustProxySetting } from './http/trust-proxy.js'

export { JwtAlgorithm }

const MIN_SECRET_BYTES = 32
const MIN_METRICS_TOKEN_LENGTH = 32
const KEY_SOURCE_VARIABLES = {
  secret: 'WEAVE_JWT_SECRET',
  'public-key': 'WEAVE_JWT_PUBLIC_KEY',
  jwks: 'WEAVE_JWT_JWKS_URL',
} as const

const Env = z.object({
  // Database, queues, steps' outside world, secrets and logging, as the workers read them.
  ...SharedEnv,
  PORT: Port.default(3000),
  // Unset: 127.0.0.1, or 0.0.0.0 with NODE_ENV=production (as in the Docker image).
  HOST: z.string().optional(),
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
  WEAVE_JWT_JWKS_URL: HttpUrl.optional(),
  WEAVE_JWT_ISSUER: z.string().optional(),
  WEAVE_JWT_AUDIENCE: z.string().default('weave'),
  WEAVE_JWT_ALGORITHMS: List.pipe(z.array(JwtAlgorithm).min(1)).optional(),
  WEAVE_JWT_TENANT_CLAIM: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_.:/-]{0,99}$/, 'must be a claim name')
    .default('tid'),
  WEAVE_JWT_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  // Where approval links point: the API as the people clicking them reach it.
  WEAVE_PUBLIC_URL: HttpUrl.optional(),
  WEAVE_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  // 0 turns the limiter off.
  WEAVE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  WEAVE_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  // A safety net only: LISTEN/NOTIFY wakes streams as soon as an event commits.
  WEAVE_SSE_POLL_MS: z.coerce.number().int().min(50).max(300_000).default(5_000),
  WEAVE_SSE_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1_000),
  // One tenant must not hold every stream of a process.
  WEAVE_SSE_MAX_STREAMS_PER_TENANT: z.coerce.number().int().min(1).max(100_000).default(100),
  // A client that stops reading is cut off after this; it reconnects with Last-Event-ID.
  WEAVE_SSE_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // Proxies whose X-Forwarded-For sets the client IP (rate limits, logs, the audit log's ip):
  // true, a hop count, or addresses and CIDR ranges. Unset: none, the peer is the client.
  WEAVE_TRUST_PROXY: TrustProxySetting.default(false),
  // Swagger UI and /openapi.json; unset: on, except with NODE_ENV=production.
  WEAVE_DOCS: OnOff.optional(),
  // off: the API serves no /metrics at all.
  WEAVE_API_METRICS: OnOff.default(true),
  // Serves the API's /metrics on this port (0: any free one) instead of PORT, e.g. one only the
  // monitoring network reaches; WEAVE_METRICS_PORT is the worker's.
  WEAVE_API_METRICS_PORT: Port.optional(),
  // The address of that port; unset: HOST.
  WEAVE_API_METRICS_HOST: z.string().min(1).optional(),
  // When set, the API's /metrics needs `Authorization: Bearer <token>` (compared in constant time).
  WEAVE_METRICS_TOKEN: z
    .string()
    .min(MIN_METRICS_TOKEN_LENGTH, {
      error: `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters`,
    })
    .optional(),
  // The control-plane gauges query every tenant's rows: at most once per interval.
  WEAVE_METRICS_REFRESH_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  // /readyz is unauthenticated and touches Postgres and Redis: its answer is reused this long.
  WEAVE_READYZ_CACHE_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
})

type Env = z.infer<typeof Env>

/** Every environment variable the API's configuration reads (the workers' shared ones included). */
export const API_ENV_VARIABLES: readonly string[] = Object.keys(Env.shape)

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
  // Every remaining problem is reported at once.
  const problems: { message: string; path: string[] }[] = []
  // A public key or a JWKS usually belongs to an identity provider that signs tokens for other
  // services too; without an issuer check Weave would accept all of them.
  if (key.kind !== 'secret' && env.WEAVE_JWT_ISSUER === undefined) {
    problems.push({
      message: `is required with ${KEY_SOURCE_VARIABLES[key.kind]}: it is the "iss" every token must carry`,
      path: ['WEAVE_JWT_ISSUER'],
    })
  }
  const metricsProblem = metricsExposureProblem(env)
  if (metricsProblem) problems.push(metricsProblem)
  const algorithms = jwtAlgorithms(key, env.WEAVE_JWT_ALGORITHMS)
  if (typeof algorithms === 'string') {
    problems.push({ message: algorithms, path: ['WEAVE_JWT_ALGORITHMS'] })
  }
  if (problems.length > 0 || typeof algorithms === 'string') {
    for (const problem of problems)
      ctx.issues.push({ code: 'custom', ...problem, input: undefined })
    return z.NEVER
  }
  const databaseUrls = databaseUrlsOf(env)
  return {
    port: env.PORT,
    host: hostOf(env),
    databaseUrl: databaseUrls.runtime,
    migrateDatabaseUrl: databaseUrls.migrate,
    isProduction: env.NODE_ENV === 'production',
    redisUrl: env.REDIS_URL,
    logLevel: env.LOG_LEVEL,
    logFormat: env.WEAVE_LOG_FORMAT,
    // Where spans are exported; tracing is off (no SDK registered) when undefined.
    otlpTracesUrl: otlpTracesUrlOf(env),
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
    // Without a key (production without WEAVE_SECRETS_KEY, or a public-key JWT setup) the API
    // refuses to register webhooks (503) rather than store a secret it could not protect.
    secretsKey: secretsKeyOf(env),
    // Without one (production without WEAVE_AUDIT_SIGNING_KEY, or a public-key JWT setup) the API
    // signs no anchors (503) and verifies the chain without them.
    auditSigningKey: auditSigningKeyOf(env),
    sse: {
      heartbeatMs: env.WEAVE_SSE_HEARTBEAT_MS,
      pollMs: env.WEAVE_SSE_POLL_MS,
      maxStreams: env.WEAVE_SSE_MAX_STREAMS,
      maxStreamsPerTenant: env.WEAVE_SSE_MAX_STREAMS_PER_TENANT,
      drainTimeoutMs: env.WEAVE_SSE_DRAIN_TIMEOUT_MS,
    },
    trustProxy: env.WEAVE_TRUST_PROXY,
    docs: env.WEAVE_DOCS ?? env.NODE_ENV !== 'production',
    metrics: {
      exposure: metricsExposure(env),
      token: env.WEAVE_METRICS_TOKEN,
      refreshMs: env.WEAVE_METRICS_REFRESH_MS,
    },
    readinessCacheMs: env.WEAVE_READYZ_CACHE_MS,
    stopTimeoutMs: env.WEAVE_STOP_TIMEOUT_MS,
    // The base of the page links `POST /v1/approvals/{id}/links` issues.
    publicUrl: (env.WEAVE_PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`).replace(/\/+$/, ''),
  }
})

/** Weave's validated configuration, shared by the API, the worker (as options) and the CLI. */
export type Config = z.infer<typeof Config>
/** Where JWT verification keys come from, and with which algorithms tokens are accepted. */
export type JwtConfig = Config['jwt']
/** Who may read the API's `/metrics`, and how often its control-plane gauges are refreshed. */
export type MetricsConfig = Config['metrics']
/** Where the API serves `/metrics`: on PORT, on a port of its own, or not at all. */
export type MetricsExposure =
  { kind: 'main' } | { kind: 'port'; port: number; host: string } | { kind: 'off' }
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
  const parsed = Config.safeParse(withoutEmptyValues(env))
  if (!parsed.success) {
    throw new ConfigError(`invalid environment\n${z.prettifyError(parsed.error)}`)
  }
  return parsed.data
}

function metricsExposure(env: Env): MetricsExposure {
  if (!env.WEAVE_API_METRICS) return { kind: 'off' }
  if (env.WEAVE_API_METRICS_PORT === undefined) return { kind: 'main' }
  return {
    kind: 'port',
    port: env.WEAVE_API_METRICS_PORT,
    host: env.WEAVE_API_METRICS_HOST ?? hostOf(env),
  }
}

/** HOST, else every address in production (a container's port is published) and loopback elsewhere. */
function hostOf(env: Env): string {
  return env.HOST ?? (env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1')
}

function metricsExposureProblem(env: Env): { message: string; path: string[] } | undefined {
  if (!env.WEAVE_API_METRICS && env.WEAVE_API_METRICS_PORT !== undefined) {
    return { message: 'cannot be set with WEAVE_API_METRICS=off', path: ['WEAVE_API_METRICS_PORT'] }
  }
  if (env.WEAVE_API_METRICS_PORT !== undefined && env.WEAVE_API_METRICS_PORT !== 0) {
    if (env.WEAVE_API_METRICS_PORT === env.PORT) {
      return { message: 'must differ from PORT', path: ['WEAVE_API_METRICS_PORT'] }
    }
  }
  return undefined
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
