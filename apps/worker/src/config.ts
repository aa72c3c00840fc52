import { z } from 'zod'

const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
)

const WorkerEnv = z.object({
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })
    .default('postgres://postgres@127.0.0.1:5432/weave'),
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
  WEAVE_HTTP_ALLOW: list.default([]),
  WEAVE_HANDLERS: list.default([]),
  WEAVE_LLM_BASE_URL: z.url().optional(),
  WEAVE_LLM_API_KEY: z.string().optional(),
})

/** A worker's configuration, validated from the environment. */
export interface WorkerConfig {
  databaseUrl: string
  redisUrl: string
  logLevel: z.infer<typeof WorkerEnv>['LOG_LEVEL']
  queuePrefix: string
  concurrency: number
  lockDurationMs: number
  stalledIntervalMs: number
  reconcileIntervalMs: number
  httpAllow: string[]
  handlerModules: string[]
  llm?: { baseUrl: string; apiKey?: string }
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
  return {
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    queuePrefix: e.WEAVE_QUEUE_PREFIX,
    concurrency: e.WEAVE_WORKER_CONCURRENCY,
    lockDurationMs: e.WEAVE_WORKER_LOCK_MS,
    stalledIntervalMs: e.WEAVE_WORKER_STALLED_INTERVAL_MS,
    reconcileIntervalMs: e.WEAVE_RECONCILE_INTERVAL_MS,
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
  }
}
