import { collectDefaultMetrics, Registry } from 'prom-client'

/**
 * How often the event loop's delay is sampled for `nodejs_eventloop_lag_*`, in ms. prom-client's
 * default, 10 ms, wakes an idle process 100 times a second: about 6 ms of CPU per second per
 * process (bench/e2e/README.md). A stall of the loop longer than this still delays a sample.
 */
const EVENT_LOOP_SAMPLE_MS = 100

/**
 * The metrics registry of a Weave process, with Node's default process metrics. `weave start`
 * gives the same one to the API and the worker, so the API's `/metrics` shows both.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  return registry
}
