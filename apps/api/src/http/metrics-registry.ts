import { collectDefaultMetrics, Registry } from 'prom-client'

/**
 * The metrics registry of a Weave process, with Node's default process metrics. `weave start`
 * gives the same one to the API and the worker, so the API's `/metrics` shows both.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}
