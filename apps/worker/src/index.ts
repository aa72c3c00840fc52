export {
  DEFAULT_RECONCILE_QUIET_MS,
  reconcileOnce,
  type ReconcileReport,
  type ReconcilerDeps,
} from './reconciler.js'
export { startWorker, type RunningWorker } from './start-worker.js'
export type { WorkerOptions } from './worker-options.js'
export { loadWorkerConfig, WorkerConfigError, type WorkerConfig } from './config.js'
export {
  createWorkerMetricsRegistry,
  runWorker,
  stopTimeoutOf,
  type ConfiguredWorker,
  type RunWorkerOptions,
} from './run-worker.js'
export {
  createWorkerMetrics,
  jobWaitSeconds,
  type WebhookDeliveryOutcome,
  type WorkerMetrics,
} from './metrics.js'
export { serveMetrics, type MetricsServer } from './metrics-server.js'
