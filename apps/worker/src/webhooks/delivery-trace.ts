import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import type { SpanOrigin } from '../tracing.js'

/**
 * Where a delivery's span starts: under the span that created the delivery, from the
 * `traceparent` stored with it, linked to the span active now (the job's), so both traces lead
 * to each other. Undefined (the span nests under the job's as usual) when the delivery stored
 * none or it does not parse, or no propagator is registered (tracing off).
 */
export function deliverySpanOrigin(traceParent: string | null): SpanOrigin | undefined {
  if (traceParent === null) return undefined
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent: traceParent })
  if (trace.getSpanContext(parent) === undefined) return undefined
  const job = trace.getSpanContext(context.active())
  return { parent, ...(job ? { links: [{ context: job }] } : {}) }
}
