import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deliverySpanOrigin } from '../src/webhooks/delivery-trace.js'

const STORED = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
const JOB = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
}

// What a host with tracing on registers: a context that follows the code, and W3C propagation.
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
})
afterAll(() => {
  propagation.disable()
  context.disable()
})

const underJob = <T>(fn: () => T): T => context.with(trace.setSpanContext(ROOT_CONTEXT, JOB), fn)

describe('deliverySpanOrigin', () => {
  it("starts under the stored traceparent's span, linked to the job's span", () => {
    const origin = underJob(() => deliverySpanOrigin(STORED))
    expect(trace.getSpanContext(origin!.parent)).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    })
    expect(origin!.links).toEqual([{ context: JOB }])
  })

  it('leaves the span under the job when the delivery stored no traceparent or a broken one', () => {
    expect(underJob(() => deliverySpanOrigin(null))).toBeUndefined()
    expect(underJob(() => deliverySpanOrigin('00-not-a-trace-01'))).toBeUndefined()
  })
})
