import {
  buildApp,
  createApiServices,
  createMetricsRegistry,
  createRateLimitRedis,
  createRunEventWakeups,
  registerControlPlaneMetrics,
  resourceRoutes,
  type App,
  type Config,
} from '@weave/api'
import type { Tracer } from '@opentelemetry/api'
import { connectionErrorFields, createDb } from '@weave/db'
import { createJobQueues, redisConnection } from '@weave/queue'
import type { Logger } from 'pino'
import type { DependencyWatch } from './dependency-watch.js'

/** The API with its dependencies, ready to listen; `close` releases everything it opened. */
export interface ComposedApi {
  app: App
  close(): Promise<void>
}

/** Options of {@link composeApi}. */
export interface ComposeApiOptions {
  /** The metrics registry, shared with a worker in the same process; a new one when absent. */
  metrics?: ReturnType<typeof createMetricsRegistry>
  /** Traces requests (see startTracing); no tracing hooks when absent. */
  tracer?: Tracer
}

/**
 * Builds the API from its configuration: database, queues, run event wake-ups (Postgres LISTEN),
 * rate-limit counters in Redis, metrics, services and routes. `app.listen()` also starts the
 * separate metrics listener when WEAVE_API_METRICS_PORT is set; `close` stops it. Its connections
 * report outages to `watch`, whose probes `/readyz` runs; the caller closes the watch.
 */
export function composeApi(
  config: Config,
  log: Logger,
  watch: DependencyWatch,
  options: ComposeApiOptions = {},
): ComposedApi {
  const { health } = watch
  // An outage is told once by the watch; only other errors get a line each.
  const database = createDb({
    connectionString: config.databaseUrl,
    onError: (err) => {
      if (!health.report(err)) log.warn(connectionErrorFields(err), 'database connection lost')
    },
    onAuditChainError: (err, tenant) => {
      if (!health.report(err)) {
        log.warn(
          { ...connectionErrorFields(err), tenant },
          'audit events left pending; a later chain call chains them',
        )
      }
    },
  })
  const queues = createJobQueues({
    connection: redisConnection(config.redisUrl),
    prefix: config.queuePrefix,
    onError: (err, queue) => {
      if (!health.report(err)) log.error({ err, queue }, 'queue error')
    },
  })
  const wakeups = createRunEventWakeups({ connectionString: config.databaseUrl, log, health })
  const services = createApiServices({
    database,
    jobs: queues,
    log,
    runEvents: { wakeups, ...config.sse },
    secretsKey: config.secretsKey,
    auditSigningKey: config.auditSigningKey,
    publicUrl: config.publicUrl,
    httpAllow: config.httpAllow,
  })
  const metrics = options.metrics ?? createMetricsRegistry()
  // Read lazily, at most once per refresh interval: nothing queries them while nobody scrapes.
  if (config.metrics.exposure.kind !== 'off') {
    registerControlPlaneMetrics(metrics, {
      database,
      queues: [queues.runs, queues.timers, queues.webhooks],
      openStreams: () => services.runEvents.size,
      log,
      refreshMs: config.metrics.refreshMs,
    })
  }
  const rateLimitRedis =
    config.rateLimitPerMinute > 0 ? createRateLimitRedis(config.redisUrl) : undefined
  const app = buildApp({
    config,
    log,
    checks: watch.checks,
    health,
    services,
    routes: resourceRoutes,
    metrics,
    ...(rateLimitRedis ? { rateLimitRedis } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
  })
  return {
    app,
    async close() {
      // Stops listening, ends open event streams and waits for in-flight requests first.
      await app.close()
      await wakeups.close()
      rateLimitRedis?.disconnect()
      await queues.close()
      await database.close()
    },
  }
}
