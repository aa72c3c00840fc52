import type { Database } from '@weave/db'
import type { HandlerRegistry, HttpDeps, LlmDeps } from '@weave/spec'
import type { ConnectionOptions } from 'bullmq'
import type { Logger } from 'pino'

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
}
