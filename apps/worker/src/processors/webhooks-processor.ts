import { trace, type Tracer } from '@opentelemetry/api'
import { DelayedError, type Processor } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics.js'
import { inSpan, WORKER_TRACER } from '../tracing.js'
import {
  deliverOnce,
  findDelivery,
  type DeliverDeps,
  type DeliveryOutcome,
} from '../webhooks/deliver.js'
import { deliverySpanOrigin } from '../webhooks/delivery-trace.js'
import { jobProcessor } from './job-processor.js'

/**
 * Sends webhook deliveries. A receiver's failure is recorded and the job put back as delayed
 * until the next attempt is due, without spending one of the job's own attempts: those are left
 * for this worker's failures (Postgres away), which throw and are retried by BullMQ. Each attempt
 * is a `deliver webhook` span, whose POST carries its trace to the receiver. The span continues
 * the trace of the work that created the delivery (its stored traceparent) and links to the job's
 * span; a delivery created untraced is sent in the job's trace.
 */
export function webhooksProcessor(
  deps: DeliverDeps & { log: Logger; metrics?: WorkerMetrics; tracer?: Tracer },
): Processor {
  const tracer = deps.tracer ?? trace.getTracer(WORKER_TRACER)
  return jobProcessor<DeliveryOutcome>(
    deps.metrics,
    {
      deliver: async (payload, job, token) => {
        const log = deps.log.child({ jobId: job.id, deliveryId: payload.deliveryId })
        const found = await findDelivery(deps, payload)
        const outcome = await inSpan(
          tracer,
          'deliver webhook',
          { 'weave.delivery.id': payload.deliveryId },
          async (span) => {
            const outcome = await deliverOnce(deps, payload, found)
            span.setAttribute('weave.delivery.outcome', outcome.kind)
            return outcome
          },
          deliverySpanOrigin(found?.delivery.traceParent ?? null),
        )
        if (outcome.kind === 'retry') {
          deps.metrics?.recordDeliveryOutcome('retrying')
          log.info({ attempt: outcome.attempt, statusCode: outcome.statusCode }, 'delivery failed')
        } else if (outcome.kind === 'succeeded') {
          deps.metrics?.recordDeliveryOutcome('delivered')
          log.debug({ attempt: outcome.attempt }, 'delivery succeeded')
        } else if (outcome.kind === 'failed') {
          deps.metrics?.recordDeliveryOutcome('failed')
          log.warn({ attempt: outcome.attempt, statusCode: outcome.statusCode }, 'delivery gave up')
        }
        if (outcome.kind === 'retry' || outcome.kind === 'not-due') {
          await job.moveToDelayed(Date.now() + outcome.delayMs, token)
          throw new DelayedError()
        }
        return outcome
      },
    },
    tracer,
  )
}
