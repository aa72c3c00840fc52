import { context, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api'

/**
 * The job data field that carries the enqueuer's trace context (W3C `traceparent` and
 * `tracestate`). It sits beside the payload, never in it: a payload is checked against its strict
 * schema and names the job's id, and neither may depend on who traced the enqueue.
 */
export const TRACE_FIELD = 'trace'

/**
 * The job data to add: `payload`, plus the active trace context when there is one to carry. With
 * no propagator registered (tracing off) it is `payload` itself.
 */
export function withTraceContext<P extends object>(payload: P): P {
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  if (carrier.traceparent === undefined) return payload
  return { ...payload, [TRACE_FIELD]: carrier }
}

/**
 * Splits a job's data into its payload and the trace context it carries (the root context when
 * it carries none, or something that is not a carrier).
 */
export function readTraceContext(data: unknown): { payload: unknown; context: Context } {
  if (typeof data !== 'object' || data === null || !(TRACE_FIELD in data)) {
    return { payload: data, context: ROOT_CONTEXT }
  }
  const { [TRACE_FIELD]: carrier, ...payload } = data as Record<string, unknown>
  return { payload, context: propagation.extract(ROOT_CONTEXT, stringsOf(carrier)) }
}

function stringsOf(carrier: unknown): Record<string, string> {
  if (typeof carrier !== 'object' || carrier === null) return {}
  const strings: Record<string, string> = {}
  for (const [key, value] of Object.entries(carrier)) {
    if (typeof value === 'string') strings[key] = value
  }
  return strings
}
