import { SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api'
import { JOBS, jobKindOf, type JobKind, type JobPayload } from '@weave/db'
import { readTraceContext } from '@weave/queue'
import { DelayedError, UnrecoverableError, type Job, type Processor } from 'bullmq'
import { jobWaitSeconds, type WorkerMetrics } from '../metrics.js'
import { WORKER_TRACER } from '../tracing.js'

/** Handles one kind of job, given its checked payload. */
export type JobHandler<K extends JobKind, R> = (
  payload: JobPayload<K>,
  job: Job,
  token: string | undefined,
) => Promise<R>

/**
 * A queue's processor from a handler per job kind it takes. Every job first has its queue wait
 * recorded, its kind looked up in the job catalogue and its payload checked against the kind's
 * schema; a job of a kind the queue does not take, or with a payload that fails its schema, is
 * unrecoverable (retrying cannot fix it). Each job is processed in a consumer span that continues
 * the trace its enqueuer put in the job (readTraceContext), so a run's steps join the request
 * that started it.
 */
export function jobProcessor<R>(
  metrics: WorkerMetrics | undefined,
  handlers: { [K in JobKind]?: JobHandler<K, R> },
  tracer: Tracer = trace.getTracer(WORKER_TRACER),
): Processor {
  return async (job: Job, token?: string): Promise<R> => {
    const wait = jobWaitSeconds(job)
    if (wait !== undefined) metrics?.observeQueueWait(job.queueName, wait)
    const kind = jobKindOf(job.queueName, job.name)
    const handler = kind === undefined ? undefined : handlers[kind]
    if (kind === undefined || handler === undefined) {
      throw new UnrecoverableError(`unknown job ${job.name}`)
    }
    const traced = readTraceContext(job.data)
    const payload = JOBS[kind].payload.safeParse(traced.payload)
    if (!payload.success) {
      throw new UnrecoverableError(`bad ${job.name} job payload: ${payload.error.message}`)
    }
    const attributes = {
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': job.queueName,
      'messaging.message.id': String(job.id),
    }
    return tracer.startActiveSpan(
      `process ${job.name}`,
      { kind: SpanKind.CONSUMER, attributes },
      traced.context,
      async (span) => {
        try {
          return await (handler as JobHandler<typeof kind, R>)(payload.data, job, token)
        } catch (err) {
          // A job handed back to the queue on purpose has not failed.
          if (!(err instanceof DelayedError)) {
            span.recordException(err as Error)
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message })
          }
          throw err
        } finally {
          span.end()
        }
      },
    )
  }
}
