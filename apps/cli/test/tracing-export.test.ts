import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { context, propagation, trace } from '@opentelemetry/api'
import { afterEach, describe, expect, it } from 'vitest'
import { spanSinkOf, startTracing, type Tracing } from '../src/tracing.js'

let tracing: Tracing | undefined

afterEach(async () => {
  await tracing?.shutdown()
  tracing = undefined
})

describe('tracing setup', () => {
  it('registers nothing without a collector, so every span stays a no-op', () => {
    expect(spanSinkOf({})).toBeUndefined()
    expect(startTracing(['weave-api'], spanSinkOf({ otlpTracesUrl: undefined }))).toBeUndefined()
    const span = trace.getTracer('weave-worker').startSpan('step x')
    expect(span.isRecording()).toBe(false)
    const carrier: Record<string, string> = {}
    propagation.inject(trace.setSpan(context.active(), span), carrier)
    expect(carrier).toEqual({})
  })

  it("sends spans over OTLP/HTTP to the collector, under each service's name", async () => {
    const posts: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = []
    const collector = createServer((req, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk: string) => (body += chunk))
      req.on('end', () => {
        posts.push({ path: req.url ?? '', headers: req.headers, body })
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = collector.address() as AddressInfo
      tracing = startTracing(
        ['weave-api', 'weave-worker'],
        spanSinkOf({ otlpTracesUrl: `http://127.0.0.1:${port}/v1/traces` }),
      )!
      tracing.tracerOf('weave-api').startSpan('POST /v1/runs').end()
      tracing.tracerOf('weave-worker').startSpan('execute run').end()
      // Shutting down flushes the batch.
      await tracing.shutdown()
      tracing = undefined
      expect(posts.length).toBeGreaterThan(0)
      expect(posts.every((p) => p.path === '/v1/traces')).toBe(true)
      const sent = posts.map((p) => p.body).join('\n')
      expect(sent).toContain('weave-api')
      expect(sent).toContain('weave-worker')
      expect(sent).toContain('POST /v1/runs')
      expect(sent).toContain('execute run')
    } finally {
      await new Promise((resolve) => collector.close(resolve))
    }
  })
})
