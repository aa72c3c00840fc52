import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api'

/** The tracer of Weave's outgoing HTTP; a no-op until the host registers an SDK. */
const TRACER_NAME = '@weave/spec'

/** What a client span records of one outgoing exchange. */
export interface TracedExchange {
  method: string
  url: string | URL
}

/**
 * Runs `send` in a client span for `exchange`, handing it the headers to add so the receiver
 * continues the trace (W3C `traceparent`, `tracestate`). With no SDK registered the span is a
 * no-op and the headers are empty. The span names the server but not the URL: a path carries
 * secrets as often as a query string does (Slack's and Discord's webhook URLs, bot tokens), and
 * traces go to a collector outside any tenant's reach. The span ends with `statusOf`'s answer (5xx marks it an error) or the thrown error.
 */
export async function traceHttpExchange<T>(
  exchange: TracedExchange,
  send: (traceHeaders: Record<string, string>) => Promise<T>,
  statusOf: (result: T) => number | null,
): Promise<T> {
  const url = typeof exchange.url === 'string' ? new URL(exchange.url) : exchange.url
  const method = exchange.method.toUpperCase()
  return trace.getTracer(TRACER_NAME).startActiveSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'url.scheme': url.protocol.replace(/:$/, ''),
        'server.address': url.hostname.replace(/^\[|\]$/g, ''),
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      },
    },
    async (span) => {
      try {
        const result = await send(traceHeadersOf())
        endWithStatus(span, statusOf(result))
        return result
      } catch (err) {
        span.recordException(err as Error)
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message })
        span.setAttribute('error.type', (err as Error).name || 'Error')
        throw err
      } finally {
        span.end()
      }
    },
  )
}

/** The propagation headers of the active context (empty without a registered propagator). */
export function traceHeadersOf(): Record<string, string> {
  const headers: Record<string, string> = {}
  propagation.inject(context.active(), headers)
  return headers
}

function endWithStatus(span: Span, status: number | null): void {
  if (status === null) return
  span.setAttribute('http.response.status_code', status)
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR })
    span.setAttribute('error.type', String(status))
  }
}
