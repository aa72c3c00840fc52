import {
  context,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { CompileDeps } from '@weave/spec'

/** The worker's tracer name when the host gives it no tracer (global, no-op without an SDK). */
export const WORKER_TRACER = 'weave-worker'

/** Where a span starts when not under the active one: its parent's context, and spans it links to. */
export interface SpanOrigin {
  parent: Context
  links?: Link[]
}

/**
 * Runs `work` in an active span of `tracer` (a child of the active span, or of `origin.parent`):
 * its children (steps, outgoing calls) nest under it. A thrown error is recorded on the span and
 * thrown on; the span ends either way.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  origin?: SpanOrigin,
): Promise<T> {
  const options = { attributes, ...(origin?.links ? { links: origin.links } : {}) }
  return tracer.startActiveSpan(name, options, origin?.parent ?? context.active(), async (span) => {
    try {
      return await work(span)
    } catch (err) {
      span.recordException(err as Error)
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message })
      throw err
    } finally {
      span.end()
    }
  })
}

/** A span per step a graph runs (the compiler's `aroundStep`), named after the step. */
export function stepSpans(tracer: Tracer): NonNullable<CompileDeps['aroundStep']> {
  return (call, run) =>
    inSpan(
      tracer,
      `step ${call.step}`,
      {
        'weave.graph.name': call.graph,
        'weave.run.id': call.runId,
        'weave.step.name': call.step,
        'weave.step.seq': call.seq,
      },
      run,
    )
}
