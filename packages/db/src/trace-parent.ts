import { context, isSpanContextValid, trace } from '@opentelemetry/api'
import { TRACE_PARENT_SETTING } from './schema/roles.js'

// Only this exact shape reaches SQL: lowercase hex ids and flags, as W3C Trace Context writes them.
const TRACE_PARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/

/**
 * The W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) of the span active now, or undefined
 * when there is none, it is not valid, or tracing is off (the API's no-op context holds no span).
 */
export function activeTraceParent(): string | undefined {
  const span = trace.getSpanContext(context.active())
  if (!span || !isSpanContextValid(span)) return undefined
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0')
  const traceParent = `00-${span.traceId}-${span.spanId}-${flags}`
  return TRACE_PARENT.test(traceParent) ? traceParent : undefined
}

/**
 * The values of a statement made by `withTraceParentSetting`, with the active span's traceparent
 * (or '' for none) as its last parameter.
 */
export function withTraceParentValue(values: readonly unknown[]): unknown[] {
  return [...values, activeTraceParent() ?? '']
}

/**
 * `select`, one `select <function call>` sent on the pool outside withTenant, made to set the
 * trace parent setting first, for its own implicit transaction, from parameter `$<parameter>`
 * (withTraceParentValue): what the call inserts continues the active span's trace, as in
 * withTenant. The materialized CTE is read before the call is evaluated, so the setting is in
 * force while the call runs.
 */
export function withTraceParentSetting(select: string, parameter: number): string {
  return (
    `with trace as materialized (select set_config('${TRACE_PARENT_SETTING}', $${parameter}, true)) ` +
    `${select} from trace`
  )
}
