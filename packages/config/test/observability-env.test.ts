import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { otlpTracesUrlOf, SharedEnv, withoutEmptyValues } from '@weave/config'

const Shared = z.object(SharedEnv)
const parse = (env: Record<string, string>) => Shared.parse(withoutEmptyValues(env))

describe('the observability environment', () => {
  it('turns tracing off when no OTLP endpoint is set, an empty one included', () => {
    expect(otlpTracesUrlOf(parse({}))).toBeUndefined()
    expect(otlpTracesUrlOf(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }))).toBeUndefined()
  })

  it("exports to the collector's /v1/traces, or to the traces endpoint as given", () => {
    expect(otlpTracesUrlOf(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }))).toBe(
      'http://collector:4318/v1/traces',
    )
    expect(
      otlpTracesUrlOf(
        parse({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/ingest',
        }),
      ),
    ).toBe('https://traces.example.com/ingest')
  })

  it('refuses an endpoint that is not an http(s) URL', () => {
    expect(() => parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).toThrow(
      /http\(s\) URL/,
    )
  })

  it('reads the log format, auto by default', () => {
    expect(parse({}).WEAVE_LOG_FORMAT).toBe('auto')
    expect(parse({ WEAVE_LOG_FORMAT: 'pretty' }).WEAVE_LOG_FORMAT).toBe('pretty')
    expect(parse({ WEAVE_LOG_FORMAT: 'json' }).WEAVE_LOG_FORMAT).toBe('json')
    expect(() => parse({ WEAVE_LOG_FORMAT: 'xml' })).toThrow()
  })
})
