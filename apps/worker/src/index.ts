export { reconcileOnce, type ReconcileReport } from './reconciler.js'
export { startWorker, type RunningWorker } from './start-worker.js'
export type { WorkerOptions } from './worker-options.js'
