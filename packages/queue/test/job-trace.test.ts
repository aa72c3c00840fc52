import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type TextMapPropagator,
} from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readTraceContext, TRACE_FIELD, withTraceContext } from '../src/job-trace.js'

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const SPAN_ID = 'b7ad6b7169203331'

/** The context of a sampled remote span, as a traced request would make active. */
function activeSpanContext() {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  })
}

function usePropagator(propagator: TextMapPropagator) {
  propagation.setGlobalPropagator(propagator)
}

// What a host with tracing on registers: a context that follows the code, so `context.with` holds.
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
})
afterAll(() => {
  context.disable()
})
afterEach(() => {
  propagation.disable()
})

describe('a job carrying its trace', () => {
  it('adds the active trace context beside the payload, leaving the payload as it was', () => {
    usePropagator(new W3CTraceContextPropagator())
    const payload = { runId: 'r', tenant: 't' }
    const data = context.with(activeSpanContext(), () => withTraceContext(payload))
    expect(data).toEqual({
      runId: 'r',
      tenant: 't',
      [TRACE_FIELD]: { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` },
    })
    expect(payload).toEqual({ runId: 'r', tenant: 't' })
  })

  it('adds nothing when tracing is off (no propagator registered)', () => {
    const payload = { runId: 'r', tenant: 't' }
    const data = context.with(activeSpanContext(), () => withTraceContext(payload))
    expect(data).toBe(payload)
  })

  it('adds nothing when no span is active', () => {
    usePropagator(new W3CTraceContextPropagator())
    const payload = { runId: 'r', tenant: 't' }
    expect(withTraceContext(payload)).toBe(payload)
  })

  it('reads back the payload alone and the span context the job carries', () => {
    usePropagator(new W3CTraceContextPropagator())
    const data = context.with(activeSpanContext(), () => withTraceContext({ runId: 'r' }))
    const read = readTraceContext(data)
    expect(read.payload).toEqual({ runId: 'r' })
    expect(trace.getSpanContext(read.context)).toMatchObject({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      isRemote: true,
    })
  })

  it('reads the root context from a job without a trace, or with a carrier that is not one', () => {
    usePropagator(new W3CTraceContextPropagator())
    expect(readTraceContext({ runId: 'r' })).toEqual({
      payload: { runId: 'r' },
      context: ROOT_CONTEXT,
    })
    const odd = readTraceContext({ runId: 'r', [TRACE_FIELD]: { traceparent: 7 } })
    expect(odd.payload).toEqual({ runId: 'r' })
    expect(trace.getSpanContext(odd.context)).toBeUndefined()
    const garbage = readTraceContext({ runId: 'r', [TRACE_FIELD]: 'not-a-carrier' })
    expect(trace.getSpanContext(garbage.context)).toBeUndefined()
    expect(readTraceContext(null)).toEqual({ payload: null, context: ROOT_CONTEXT })
  })
})
