import { deriveSecretsKey, parseSecretsKey, resolveDatabaseUrls } from '@weave/db'
import { z } from 'zod'
import { DEFAULT_MAX_STATE_BYTES, DEFAULT_SHUTDOWN_GRACE_MS } from './worker-options.js'

const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
)

// An empty value counts as unset.
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional())

const PostgresUrl = z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })

const SecretsKey = z.string().transform((text, ctx) => {
  try {
    return parseSecretsKey(text)
  } catch (err) {
    ctx.issues.push({ code: 'custom', message: (err as Error).message, input: text })
    return z.NEVER
  }
})

const WorkerEnv = z.object({
  // The runtime login (see the API's config): a LOGIN role that owns nothing, member of weave_app.
  WEAVE_DATABASE_URL: optional(PostgresUrl),
  // The tables' owner, used only by `weave migrate`.
  WEAVE_MIGRATE_DATABASE_URL: optional(PostgresUrl),
  // The one URL of earlier versions: stands for whichever of the two above is unset.
  DATABASE_URL: optional(PostgresUrl),
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })
    .default('redis://127.0.0.1:6379'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEAVE_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"')
    .default('weave'),
  WEAVE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  // A killed worker's jobs are retaken once their lock expires.
  WEAVE_WORKER_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  WEAVE_WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
  WEAVE_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  // Give every worker the same value: running runs renew their lease at a quarter of it.
  WEAVE_RECONCILE_QUIET_MS: z.coerce.number().int().min(200).max(3_600_000).default(10_000),
  // The largest checkpoint a step may write (JSON text); a larger state fails the run.
  WEAVE_MAX_STATE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(DEFAULT_MAX_STATE_BYTES),
  // Ceilings on every graph's limits; a graph that sets none runs with the ceiling.
  WEAVE_MAX_ITERATIONS: optional(z.coerce.number().int().min(1).max(1_000_000)),
  WEAVE_MAX_STEP_BUDGET: optional(z.coerce.number().int().min(1).max(10_000_000)),
  // How long a stopping worker lets steps in flight finish before aborting them.
  WEAVE_SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(DEFAULT_SHUTDOWN_GRACE_MS),
  WEAVE_METRICS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  WEAVE_METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  WEAVE_HTTP_ALLOW: list.default([]),
  WEAVE_HANDLERS: list.default([]),
  WEAVE_LLM_BASE_URL: z.url().optional(),
  WEAVE_LLM_API_KEY: z.string().optional(),
  NODE_ENV: z.string().optional(),
  // Decrypts webhook signing secrets; outside production it is derived from WEAVE_JWT_SECRET
  // when unset, so the API and the workers of a development setup agree without it.
  WEAVE_SECRETS_KEY: optional(SecretsKey),
  WEAVE_JWT_SECRET: optional(z.string()),
  // Where approval links point: the API as the people clicking them reach it.
  WEAVE_PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
})

/** A worker's configuration, validated from the environment. */
export interface WorkerConfig {
  /** The runtime login's connection string. */
  databaseUrl: string
  /** The tables' owner's connection string, for migrations only. */
  migrateDatabaseUrl: string
  /** NODE_ENV=production: an unsafe runtime login refuses the start instead of a warning. */
  isProduction: boolean
  redisUrl: string
  logLevel: z.infer<typeof WorkerEnv>['LOG_LEVEL']
  queuePrefix: string
  concurrency: number
  lockDurationMs: number
  stalledIntervalMs: number
  reconcileIntervalMs: number
  reconcileQuietMs: number
  maxStateBytes: number
  /** Server-wide ceilings on graphs' `limits` (none set: the kernel's defaults). */
  maxima: { maxIterations?: number; stepBudget?: number }
  shutdownGraceMs: number
  /** Where the worker serves `/metrics`; none when absent. */
  metrics?: { port: number; host: string }
  httpAllow: string[]
  handlerModules: string[]
  llm?: { baseUrl: string; apiKey?: string }
  /** Key of the webhook secrets; absent when neither set nor derivable (no deliveries then). */
  secretsKey?: Buffer
  /** Base URL of approval links (`WEAVE_PUBLIC_URL`, else the API on 127.0.0.1:PORT). */
  publicUrl: string
}

/** Thrown for an invalid environment; its message lists every problem. */
export class WorkerConfigError extends Error {
  override name = 'WorkerConfigError'
}

/**
 * Reads the worker's configuration from the environment (the only place the worker does).
 * @throws WorkerConfigError listing every invalid variable
 */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const parsed = WorkerEnv.safeParse(env)
  if (!parsed.success) {
    throw new WorkerConfigError(`invalid environment\n${z.prettifyError(parsed.error)}`)
  }
  const e = parsed.data
  const secretsKey =
    e.WEAVE_SECRETS_KEY ??
    (e.NODE_ENV !== 'production' && e.WEAVE_JWT_SECRET
      ? deriveSecretsKey(e.WEAVE_JWT_SECRET)
      : undefined)
  const databaseUrls = resolveDatabaseUrls({
    runtime: e.WEAVE_DATABASE_URL,
    migrate: e.WEAVE_MIGRATE_DATABASE_URL,
    legacy: e.DATABASE_URL,
  })
  return {
    databaseUrl: databaseUrls.runtime,
    migrateDatabaseUrl: databaseUrls.migrate,
    isProduction: e.NODE_ENV === 'production',
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    queuePrefix: e.WEAVE_QUEUE_PREFIX,
    concurrency: e.WEAVE_WORKER_CONCURRENCY,
    lockDurationMs: e.WEAVE_WORKER_LOCK_MS,
    stalledIntervalMs: e.WEAVE_WORKER_STALLED_INTERVAL_MS,
    reconcileIntervalMs: e.WEAVE_RECONCILE_INTERVAL_MS,
    reconcileQuietMs: e.WEAVE_RECONCILE_QUIET_MS,
    maxStateBytes: e.WEAVE_MAX_STATE_BYTES,
    maxima: {
      ...(e.WEAVE_MAX_ITERATIONS === undefined ? {} : { maxIterations: e.WEAVE_MAX_ITERATIONS }),
      ...(e.WEAVE_MAX_STEP_BUDGET === undefined ? {} : { stepBudget: e.WEAVE_MAX_STEP_BUDGET }),
    },
    shutdownGraceMs: e.WEAVE_SHUTDOWN_GRACE_MS,
    ...(e.WEAVE_METRICS_PORT === undefined
      ? {}
      : { metrics: { port: e.WEAVE_METRICS_PORT, host: e.WEAVE_METRICS_HOST } }),
    httpAllow: e.WEAVE_HTTP_ALLOW,
    handlerModules: e.WEAVE_HANDLERS,
    ...(e.WEAVE_LLM_BASE_URL
      ? {
          llm: {
            baseUrl: e.WEAVE_LLM_BASE_URL,
            ...(e.WEAVE_LLM_API_KEY ? { apiKey: e.WEAVE_LLM_API_KEY } : {}),
          },
        }
      : {}),
    ...(secretsKey ? { secretsKey } : {}),
    publicUrl: e.WEAVE_PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`,
  }
}
