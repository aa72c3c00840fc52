import type { Tracer } from '@opentelemetry/api'
import type { Database } from '@weave/db'
import type { DependencyHealth } from '@weave/queue'
import type { HandlerRegistry, HttpDeps, LlmDeps } from '@weave/spec'
import type { ConnectionOptions } from 'bullmq'
import type { KeyObject } from 'node:crypto'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { DeliverySettings } from './webhooks/delivery-settings.js'

/** The largest checkpoint a step may write by default: 4 MiB of JSON. */
export const DEFAULT_MAX_STATE_BYTES = 4 * 1024 * 1024

/** How long a shutdown lets steps in flight finish by default before aborting them. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 25_000

/** How often every audit chain that grew is anchored by default. */
export const DEFAULT_ANCHOR_INTERVAL_MS = 3_600_000

/** How often retention policies are applied by default. */
export const DEFAULT_RETENTION_INTERVAL_MS = 600_000

/** Everything a worker needs; the CLI builds it from the validated environment. */
export interface WorkerOptions {
  /** The app-role database (createDb). */
  database: Database
  connection: ConnectionOptions
  /** BullMQ key prefix (default "weave"). */
  prefix?: string
  /** Jobs processed at once per queue (default 8). */
  concurrency?: number
  log: Logger
  handlers?: HandlerRegistry
  http?: HttpDeps
  llm?: LlmDeps
  /** How long a job's lock lives without renewal; a killed worker's jobs are retaken after it. */
  lockDurationMs?: number
  /** How often BullMQ looks for stalled jobs. */
  stalledIntervalMs?: number
  /** How often the reconciler runs (0: never). Default 30 s. */
  reconcileIntervalMs?: number
  /**
   * How long a run must sit unchanged before the reconciler repairs it (default 10 s). Running
   * runs renew their lease at a quarter of it, so use one value for every worker.
   */
  reconcileQuietMs?: number
  /** Where the worker's metrics are recorded; a fresh registry when absent. */
  metrics?: Registry
  /**
   * Decrypts webhook signing secrets (`WEAVE_SECRETS_KEY`). Without it this worker sends no
   * webhook deliveries; they wait, pending, for a worker that has it.
   */
  secretsKey?: Buffer
  /** The API's public base URL: approval links point there. No links when absent. */
  publicUrl?: string
  /** The largest checkpoint (JSON text) a step may write; a larger state fails the run naming the step. */
  maxStateBytes?: number
  /** Server-wide ceilings on every graph's `limits.maxIterations` and `limits.stepBudget`. */
  maxima?: { maxIterations?: number; stepBudget?: number }
  /**
   * How long a shutdown lets steps in flight finish before aborting them (default 25 s): an
   * outside call in flight completes rather than being cut off and sent again.
   */
  shutdownGraceMs?: number
  /**
   * Where the worker's connections report outages, shared with the API in one process; without
   * it the worker watches Postgres and Redis itself over its own pool and queues.
   */
  health?: DependencyHealth
  /** How deliveries are attempted (defaults: 8 attempts, 1 s doubling up to 10 min, 10 s timeout). */
  webhooks?: Partial<DeliverySettings>
  /**
   * Audit anchors: the Ed25519 key that signs them (`WEAVE_AUDIT_SIGNING_KEY`), how often every
   * grown chain is anchored (0: never; default 1 h) and where each anchor is sent. Without it this
   * worker anchors nothing.
   */
  auditAnchors?: { signingKey: KeyObject; intervalMs?: number; webhookUrl?: string }
  /** How often every tenant's retention policies are applied (0: never; default 10 min). */
  retentionIntervalMs?: number
  /**
   * Where the worker's spans go: one per job (continuing the trace the job carries), per run
   * execution, per step and per webhook delivery. Absent: the global tracer, a no-op unless an
   * OpenTelemetry SDK is registered.
   */
  tracer?: Tracer
}
