import type { Tracer } from '@opentelemetry/api'
import { connectionErrorFields, createDb, type Database } from '@weave/db'
import { redisConnection, type DependencyHealth } from '@weave/queue'
import { createHandlerRegistry, loadHandlerModules } from '@weave/spec'
import type { Logger } from 'pino'
import { collectDefaultMetrics, Registry } from 'prom-client'
import type { WorkerConfig } from './config.js'
import { serveMetrics, type MetricsServer } from './metrics-server.js'
import { startWorker, type RunningWorker } from './start-worker.js'

/** A worker started from its configuration, owning its database pool. */
export interface ConfiguredWorker extends RunningWorker {
  database: Database
  /** The `/metrics` endpoint, when `WEAVE_METRICS_PORT` is set. */
  metricsServer?: MetricsServer
}

/** Options of {@link runWorker}. */
export interface RunWorkerOptions {
  /**
   * Where metrics are recorded, e.g. the API's registry when both run in one process. Absent: a
   * registry of this worker's own, with the process's default metrics.
   */
  metrics?: Registry
  /** Where the worker's connections report outages (see WorkerOptions.health). */
  health?: DependencyHealth
  /** Where the worker's spans go (see WorkerOptions.tracer). */
  tracer?: Tracer
}

/**
 * Loads the handler modules and starts a worker as the configuration says, serving its metrics
 * when a metrics port is configured.
 * @throws the listen error of the metrics port (the worker is closed again first)
 */
export async function runWorker(
  config: WorkerConfig,
  log: Logger,
  options: RunWorkerOptions = {},
): Promise<ConfiguredWorker> {
  const handlers = createHandlerRegistry()
  const loaded = await loadHandlerModules(handlers, config.handlerModules)
  if (loaded.length > 0) log.info({ handlers: loaded }, 'handlers loaded')
  const database = createDb({
    connectionString: config.databaseUrl,
    max: config.concurrency + 4,
    onError: (err) => {
      if (!options.health?.report(err)) {
        log.warn(connectionErrorFields(err), 'database connection lost')
      }
    },
    onAuditChainError: (err, tenant) => {
      if (!options.health?.report(err)) {
        log.warn(
          { ...connectionErrorFields(err), tenant },
          'audit events left pending; a later chain call chains them',
        )
      }
    },
  })
  const registry = options.metrics ?? createWorkerMetricsRegistry()
  const worker = startWorker({
    database,
    connection: redisConnection(config.redisUrl),
    prefix: config.queuePrefix,
    concurrency: config.concurrency,
    log,
    handlers,
    http: { allow: config.httpAllow },
    ...(config.llm ? { llm: config.llm } : {}),
    lockDurationMs: config.lockDurationMs,
    stalledIntervalMs: config.stalledIntervalMs,
    reconcileIntervalMs: config.reconcileIntervalMs,
    retentionIntervalMs: config.retentionIntervalMs,
    reconcileQuietMs: config.reconcileQuietMs,
    maxStateBytes: config.maxStateBytes,
    maxima: config.maxima,
    shutdownGraceMs: config.shutdownGraceMs,
    metrics: registry,
    ...(config.secretsKey ? { secretsKey: config.secretsKey } : {}),
    publicUrl: config.publicUrl,
    ...(options.health ? { health: options.health } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
    ...(config.auditAnchors ? { auditAnchors: config.auditAnchors } : {}),
  })
  const close = async () => {
    await worker.close()
    await database.close()
  }
  let metricsServer: MetricsServer | undefined
  if (config.metrics) {
    try {
      metricsServer = await serveMetrics(registry, config.metrics)
    } catch (err) {
      await close()
      throw err
    }
    log.info({ port: metricsServer.port }, 'worker metrics served')
  }
  return {
    ...worker,
    database,
    ...(metricsServer ? { metricsServer } : {}),
    async close() {
      await metricsServer?.close()
      await close()
    },
  }
}

/**
 * How often the event loop's delay is sampled for `nodejs_eventloop_lag_*`, in ms, as the API
 * does: prom-client's default, 10 ms, wakes an idle worker 100 times a second (about 6 ms of CPU
 * per second). A stall of the loop longer than this still delays a sample.
 */
const EVENT_LOOP_SAMPLE_MS = 100

/** The metrics registry of a worker process, with Node's default process metrics. */
export function createWorkerMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  return registry
}

/**
 * How long a stop of `worker` may take before the process exits anyway: WEAVE_STOP_TIMEOUT_MS,
 * plus WEAVE_SHUTDOWN_GRACE_MS when runs are in flight, the time their steps are given to finish.
 */
export function stopTimeoutOf(
  config: Pick<WorkerConfig, 'stopTimeoutMs' | 'shutdownGraceMs'>,
  worker: Pick<RunningWorker, 'runsInFlight'>,
): number {
  return config.stopTimeoutMs + (worker.runsInFlight() > 0 ? config.shutdownGraceMs : 0)
}
