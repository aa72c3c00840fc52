import { context, propagation, trace, type Tracer } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions'

/** The service a process's spans are reported under. */
export type TracedService = 'weave-api' | 'weave-worker'

/** Where spans go: a collector's OTLP/HTTP traces URL, or (tests) an exporter of the caller's. */
export type SpanSink = { otlpTracesUrl: string } | { exporter: SpanExporter }

/** Tracing as registered for this process. */
export interface Tracing {
  /** The tracer whose spans carry `service`'s name. */
  tracerOf(service: TracedService): Tracer
  /** Sends the spans still buffered, then unregisters everything registered. */
  shutdown(): Promise<void>
}

/**
 * Registers OpenTelemetry for this process: W3C trace context propagation, an async-local
 * context (so a span stays current across awaits), and a tracer provider per service, each with
 * its `service.name`. The last service's provider is also the global one: the spans of steps'
 * outgoing calls (@weave/spec, which knows no service) are reported under it, so list the worker
 * last. Spans are batched to the collector, or handed one by one to a given exporter. Without a
 * sink nothing is registered and every span in the code base stays a no-op.
 */
export function startTracing(
  services: readonly TracedService[],
  sink: SpanSink | undefined,
): Tracing | undefined {
  if (!sink || services.length === 0) return undefined
  const providers = new Map<TracedService, BasicTracerProvider>()
  for (const service of services) {
    providers.set(
      service,
      new BasicTracerProvider({
        resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }),
        spanProcessors: [processorOf(sink)],
      }),
    )
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(providers.get(services[services.length - 1]!)!)
  return {
    tracerOf(service) {
      const provider = providers.get(service)
      if (!provider) throw new TypeError(`tracing was not started for ${service}`)
      return provider.getTracer(service)
    },
    async shutdown() {
      await Promise.all([...providers.values()].map((p) => p.shutdown()))
      trace.disable()
      propagation.disable()
      context.disable()
    },
  }
}

function processorOf(sink: SpanSink): SpanProcessor {
  if ('exporter' in sink) return new SimpleSpanProcessor(sink.exporter)
  return new BatchSpanProcessor(new OTLPTraceExporter({ url: sink.otlpTracesUrl }))
}

/** The sink the configuration names: OTLP when a traces URL is set, none otherwise. */
export function spanSinkOf(config: { otlpTracesUrl?: string | undefined }): SpanSink | undefined {
  return config.otlpTracesUrl ? { otlpTracesUrl: config.otlpTracesUrl } : undefined
}
