import fp from 'fastify-plugin'
import { Histogram, type Registry } from 'prom-client'

const HTTP_DURATION = 'weave_http_request_duration_seconds'

/** Options of {@link metricsPlugin}. */
export interface MetricsPluginOptions {
  registry: Registry
}

/**
 * Records every response's duration, by method, route pattern and status, in `registry`; event
 * streams are left out.
 */
export const metricsPlugin = fp<MetricsPluginOptions>(
  async (app, { registry }) => {
    const duration =
      (registry.getSingleMetric(HTTP_DURATION) as Histogram | undefined) ??
      new Histogram({
        name: HTTP_DURATION,
        help: 'HTTP request durations in seconds, by method, route pattern and status.',
        labelNames: ['method', 'route', 'status'] as const,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      })
    app.addHook('onResponse', async (request, reply) => {
      // An event stream lasts as long as its run: it would swamp the latency buckets.
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/event-stream')) return
      // The route pattern, never the raw URL, keeps the label set bounded.
      const route = request.routeOptions.url ?? 'unmatched'
      duration.observe(
        { method: request.method, route, status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      )
    })
  },
  { name: 'weave-metrics' },
)
