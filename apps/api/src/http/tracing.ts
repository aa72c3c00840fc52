import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

/** Options of {@link tracingPlugin}. */
export interface TracingPluginOptions {
  tracer: Tracer
}

interface RequestTrace {
  span: Span
  context: Context
}

/**
 * A server span per request, continuing the caller's trace when it sends a W3C `traceparent`
 * (and `tracestate`). The span's context is active from `onRequest` on, and entered again at
 * `preHandler` so that no hook or body parser in between can detach the handler from it: what a
 * handler does (enqueuing a run's job) carries the trace on. The span is named after the route
 * template, never the URL: a path or query may hold a credential (an approval link's token).
 */
export const tracingPlugin = fp<TracingPluginOptions>(
  async (app, { tracer }) => {
    const traces = new WeakMap<FastifyRequest, RequestTrace>()
    app.addHook('onRequest', (request, _reply, done) => {
      const parent = propagation.extract(ROOT_CONTEXT, request.headers)
      const span = tracer.startSpan(
        request.method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'url.scheme': request.protocol,
            'weave.request.id': request.id,
          },
        },
        parent,
      )
      const active = trace.setSpan(parent, span)
      traces.set(request, { span, context: active })
      context.with(active, done)
    })
    app.addHook('preHandler', (request, _reply, done) => {
      const found = traces.get(request)
      if (found) context.with(found.context, done)
      else done()
    })
    app.addHook('onResponse', (request, reply, done) => {
      endSpan(traces, request, reply.statusCode)
      done()
    })
    app.addHook('onRequestAbort', (request, done) => {
      endSpan(traces, request, null)
      done()
    })
  },
  { name: 'weave-tracing' },
)

function endSpan(
  traces: WeakMap<FastifyRequest, RequestTrace>,
  request: FastifyRequest,
  status: number | null,
): void {
  const found = traces.get(request)
  if (!found) return
  traces.delete(request)
  const { span } = found
  const route = request.routeOptions.url
  if (route) {
    span.updateName(`${request.method} ${route}`)
    span.setAttribute('http.route', route)
  }
  if (status === null) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' })
  } else {
    span.setAttribute('http.response.status_code', status)
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
  }
  span.end()
}
