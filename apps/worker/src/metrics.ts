import { Counter, Histogram, type Metric, type Registry } from 'prom-client'

/** How one webhook delivery attempt ended. */
export type WebhookDeliveryOutcome = 'delivered' | 'retrying' | 'failed'

/** What a worker records about its own work; `/metrics` of the worker (or of `weave start`). */
export interface WorkerMetrics {
  /** A step of a run took `seconds`, from its before hook to its after hook. */
  observeStep(seconds: number): void
  /** A job waited `seconds` in `queue` between becoming due and a worker taking it. */
  observeQueueWait(queue: string, seconds: number): void
  /** One webhook delivery attempt ended with `outcome`; the webhook deliverer calls it. */
  recordDeliveryOutcome(outcome: WebhookDeliveryOutcome): void
  /** What one reconciler pass repaired, by kind of repair. */
  recordRepairs(counts: Readonly<Record<string, number>>): void
  /** What one retention pass removed, by kind of row (checkpoints, runs, events, ...). */
  recordRetention(counts: Readonly<Record<string, number>>): void
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

/**
 * The worker's metrics in `registry`. A metric already registered there (a second worker in the
 * same process) is reused, never registered twice.
 */
export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  const steps = metricOf(
    registry,
    'weave_step_duration_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Duration of run steps executed by this process, in seconds.',
        buckets: SECONDS_BUCKETS,
        registers: [registry],
      }),
  )
  const queueWait = metricOf(
    registry,
    'weave_queue_wait_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Time jobs waited in their queue between becoming due and being taken, in seconds.',
        labelNames: ['queue'] as const,
        buckets: SECONDS_BUCKETS,
        registers: [registry],
      }),
  )
  const deliveries = metricOf(
    registry,
    'weave_webhook_deliveries_total',
    (name) =>
      new Counter({
        name,
        help: 'Webhook delivery attempts by outcome (delivered, retrying, failed).',
        labelNames: ['outcome'] as const,
        registers: [registry],
      }),
  )
  const repairs = metricOf(
    registry,
    'weave_reconciler_repairs_total',
    (name) =>
      new Counter({
        name,
        help: 'Repairs made by the reconciler, by kind (requeued, recovered, resumed, ...).',
        labelNames: ['kind'] as const,
        registers: [registry],
      }),
  )
  const retained = metricOf(
    registry,
    'weave_retention_removed_total',
    (name) =>
      new Counter({
        name,
        help: 'Rows removed by retention, by kind (checkpoints, runs, events, deliveries, ...).',
        labelNames: ['kind'] as const,
        registers: [registry],
      }),
  )
  return {
    observeStep: (seconds) => steps.observe(Math.max(0, seconds)),
    observeQueueWait: (queue, seconds) => queueWait.observe({ queue }, Math.max(0, seconds)),
    recordDeliveryOutcome: (outcome) => deliveries.inc({ outcome }),
    recordRepairs(counts) {
      for (const [kind, count] of Object.entries(counts)) {
        if (count > 0) repairs.inc({ kind }, count)
      }
    },
    recordRetention(counts) {
      for (const [kind, count] of Object.entries(counts)) {
        if (count > 0) retained.inc({ kind }, count)
      }
    },
  }
}

function metricOf<M extends Metric>(registry: Registry, name: string, create: (name: string) => M) {
  return (registry.getSingleMetric(name) as M | undefined) ?? create(name)
}

/**
 * How long a job waited between becoming due (added, plus its delay) and being taken, in
 * seconds; undefined for a retried job, whose wait would include its earlier attempts.
 */
export function jobWaitSeconds(job: {
  timestamp: number
  delay?: number
  processedOn?: number | undefined
  attemptsStarted?: number
}): number | undefined {
  if (job.processedOn === undefined || (job.attemptsStarted ?? 1) > 1) return undefined
  return Math.max(0, job.processedOn - job.timestamp - (job.delay ?? 0)) / 1000
}
