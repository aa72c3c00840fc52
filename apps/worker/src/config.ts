import {
  auditSigningKeyOf,
  databaseUrlsOf,
  HttpUrl,
  llmOf,
  otlpTracesUrlOf,
  Port,
  secretsKeyOf,
  SharedEnv,
  withoutEmptyValues,
} from '@weave/config'
import type { KeyObject } from 'node:crypto'
import { z } from 'zod'
import {
  DEFAULT_ANCHOR_INTERVAL_MS,
  DEFAULT_MAX_STATE_BYTES,
  DEFAULT_RETENTION_INTERVAL_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
} from './worker-options.js'

const WorkerEnv = z.object({
  // Database, queues, steps' outside world, secrets and logging, as the API reads them.
  ...SharedEnv,
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
  WEAVE_MAX_ITERATIONS: z.coerce.number().int().min(1).max(1_000_000).optional(),
  WEAVE_MAX_STEP_BUDGET: z.coerce.number().int().min(1).max(10_000_000).optional(),
  // How long a stopping worker lets steps in flight finish before aborting them.
  WEAVE_SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(DEFAULT_SHUTDOWN_GRACE_MS),
  WEAVE_METRICS_PORT: Port.refine((port) => port > 0, 'must be a port number').optional(),
  WEAVE_METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  // Only what a development secrets key is derived from (see SharedEnv's WEAVE_SECRETS_KEY).
  WEAVE_JWT_SECRET: z.string().optional(),
  // Where approval links point: the API as the people clicking them reach it.
  WEAVE_PUBLIC_URL: HttpUrl.optional(),
  PORT: Port.default(3000),
  // How often each audit chain that grew is anchored (0: never), and where anchors are sent.
  WEAVE_AUDIT_ANCHOR_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000)
    .default(DEFAULT_ANCHOR_INTERVAL_MS),
  WEAVE_AUDIT_ANCHOR_WEBHOOK_URL: HttpUrl.optional(),
  // How often every tenant's retention policies are applied (0: never).
  WEAVE_RETENTION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000)
    .default(DEFAULT_RETENTION_INTERVAL_MS),
})

/** Every environment variable the worker's configuration reads (the API's shared ones included). */
export const WORKER_ENV_VARIABLES: readonly string[] = Object.keys(WorkerEnv.shape)

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
  logFormat: z.infer<typeof WorkerEnv>['WEAVE_LOG_FORMAT']
  /** Where spans are exported (OTLP/HTTP); tracing is off when absent. */
  otlpTracesUrl?: string
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
  /** How long a stop may take beyond the shutdown grace before the process exits anyway. */
  stopTimeoutMs: number
  /** Where the worker serves `/metrics`; none when absent. */
  metrics?: { port: number; host: string }
  httpAllow: string[]
  handlerModules: string[]
  llm?: { baseUrl: string; apiKey?: string }
  /** Key of the webhook secrets; absent when neither set nor derivable (no deliveries then). */
  secretsKey?: Buffer
  /** Base URL of approval links (`WEAVE_PUBLIC_URL`, else the API on 127.0.0.1:PORT). */
  publicUrl: string
  /** Audit anchors; absent when no signing key is set nor derivable (no anchors then). */
  auditAnchors?: { signingKey: KeyObject; intervalMs: number; webhookUrl?: string }
  /** How often retention policies are applied (0: never). */
  retentionIntervalMs: number
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
  const parsed = WorkerEnv.safeParse(withoutEmptyValues(env))
  if (!parsed.success) {
    throw new WorkerConfigError(`invalid environment\n${z.prettifyError(parsed.error)}`)
  }
  const e = parsed.data
  const secretsKey = secretsKeyOf(e)
  const databaseUrls = databaseUrlsOf(e)
  const llm = llmOf(e)
  const auditSigningKey = auditSigningKeyOf(e)
  return {
    databaseUrl: databaseUrls.runtime,
    migrateDatabaseUrl: databaseUrls.migrate,
    isProduction: e.NODE_ENV === 'production',
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    logFormat: e.WEAVE_LOG_FORMAT,
    otlpTracesUrl: otlpTracesUrlOf(e),
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
    stopTimeoutMs: e.WEAVE_STOP_TIMEOUT_MS,
    ...(e.WEAVE_METRICS_PORT === undefined
      ? {}
      : { metrics: { port: e.WEAVE_METRICS_PORT, host: e.WEAVE_METRICS_HOST } }),
    httpAllow: e.WEAVE_HTTP_ALLOW,
    handlerModules: e.WEAVE_HANDLERS,
    ...(llm ? { llm } : {}),
    ...(secretsKey ? { secretsKey } : {}),
    publicUrl: e.WEAVE_PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`,
    ...(auditSigningKey
      ? {
          auditAnchors: {
            signingKey: auditSigningKey,
            intervalMs: e.WEAVE_AUDIT_ANCHOR_INTERVAL_MS,
            ...(e.WEAVE_AUDIT_ANCHOR_WEBHOOK_URL
              ? { webhookUrl: e.WEAVE_AUDIT_ANCHOR_WEBHOOK_URL }
              : {}),
          },
        }
      : {}),
    retentionIntervalMs: e.WEAVE_RETENTION_INTERVAL_MS,
  }
}
