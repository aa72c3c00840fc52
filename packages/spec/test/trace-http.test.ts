import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sendWithRetry } from '../src/http/request.js'
import { traceHttpExchange } from '../src/http/trace-http.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(provider)
})
afterAll(async () => {
  await provider.shutdown()
  trace.disable()
  propagation.disable()
  context.disable()
})
beforeEach(() => exporter.reset())

const finished = () => exporter.getFinishedSpans()

describe('an outgoing call in a client span', () => {
  it('hands the call the span as its traceparent, under the active span', async () => {
    const parent = provider.getTracer('test').startSpan('step')
    const headers = await context.with(trace.setSpan(context.active(), parent), () =>
      traceHttpExchange(
        { method: 'post', url: 'https://user:pw@api.example.com:8443/v1/pay?token=secret' },
        async (traceHeaders) => traceHeaders,
        () => 201,
      ),
    )
    parent.end()
    const [client] = finished().filter((s) => s.kind === SpanKind.CLIENT)
    expect(client!.name).toBe('POST')
    expect(client!.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
    expect(headers.traceparent).toBe(
      `00-${parent.spanContext().traceId}-${client!.spanContext().spanId}-01`,
    )
    // Neither the path, the query string nor the URL's credentials reach the span.
    expect(client!.attributes).toEqual({
      'http.request.method': 'POST',
      'url.scheme': 'https',
      'server.address': 'api.example.com',
      'server.port': 8443,
      'http.response.status_code': 201,
    })
  })

  it('marks a 5xx answer and a thrown error as failures', async () => {
    await traceHttpExchange(
      { method: 'GET', url: 'http://a.example/' },
      async () => 503,
      (s) => s,
    )
    const failure = new TypeError('fetch failed')
    await expect(
      traceHttpExchange(
        { method: 'GET', url: 'http://b.example/' },
        () => Promise.reject(failure),
        () => 200,
      ),
    ).rejects.toBe(failure)
    const [unavailable, thrown] = finished()
    expect(unavailable!.status.code).toBe(SpanStatusCode.ERROR)
    expect(unavailable!.attributes['http.response.status_code']).toBe(503)
    expect(unavailable!.attributes['server.port']).toBe(80)
    expect(thrown!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'fetch failed' })
    expect(thrown!.attributes['error.type']).toBe('TypeError')
  })

  it("sends an http step's request with the traceparent of its one span, retries included", async () => {
    const sent: Array<Record<string, string>> = []
    let calls = 0
    const res = await sendWithRetry({
      fetch: async (_url, init) => {
        sent.push(init?.headers as Record<string, string>)
        calls += 1
        return new Response('ok', { status: calls === 1 ? 503 : 200 })
      },
      url: 'http://api.example/x',
      method: 'GET',
      headers: { accept: 'text/plain' },
      attempts: 2,
      backoffMs: 0,
      timeoutMs: 1000,
      signal: new AbortController().signal,
      maxBodyBytes: 1000,
      retryStatus: () => true,
    })
    expect(res.status).toBe(200)
    const [client] = finished()
    const traceparent = `00-${client!.spanContext().traceId}-${client!.spanContext().spanId}-01`
    expect(sent).toEqual([
      { accept: 'text/plain', traceparent },
      { accept: 'text/plain', traceparent },
    ])
    expect(finished()).toHaveLength(1)
  })
})
