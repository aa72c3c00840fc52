import { GraphRegistry, RUNS_QUEUE, TIMERS_QUEUE, WEBHOOKS_QUEUE } from '@weave/db'
import { createJobQueues, type JobQueues } from '@weave/queue'
import { Worker } from 'bullmq'
import { Registry } from 'prom-client'
import { Inflight } from './inflight.js'
import { runsProcessor } from './processors/runs-processor.js'
import { timersProcessor } from './processors/timers-processor.js'
import { webhooksProcessor } from './processors/webhooks-processor.js'
import { createWorkerMetrics } from './metrics.js'
import { DEFAULT_RECONCILE_QUIET_MS, startReconciler } from './reconciler.js'
import { stepEventHooks } from './step-events.js'
import { listenForDeliveries } from './webhooks/delivery-listener.js'
import { DEFAULT_DELIVERY_SETTINGS } from './webhooks/delivery-settings.js'
import type { WorkerOptions } from './worker-options.js'

/** A started worker. */
export interface RunningWorker {
  queues: JobQueues
  /** The registry the worker records its metrics in. */
  metrics: Registry
  /** Stops taking jobs, stops current runs at their next step boundary, and closes the queues. */
  close(): Promise<void>
}

/**
 * Starts the BullMQ workers of the runs and timers queues, and the reconciler; with a secrets key,
 * the webhooks queue's worker and the listener that enqueues new deliveries too.
 */
export function startWorker(o: WorkerOptions): RunningWorker {
  const prefix = o.prefix ?? 'weave'
  const queues = createJobQueues({ connection: o.connection, prefix })
  const inflight = new Inflight()
  const registry = o.metrics ?? new Registry()
  const metrics = createWorkerMetrics(registry)
  const quietMs = o.reconcileQuietMs ?? DEFAULT_RECONCILE_QUIET_MS
  const graphs = new GraphRegistry(
    o.database,
    {
      ...(o.handlers ? { handlers: o.handlers } : {}),
      ...(o.http ? { http: o.http } : {}),
      ...(o.llm ? { llm: o.llm } : {}),
      // A run must not go on past a step whose checkpoint was not written.
      checkpointPolicy: 'required',
      onSuspend: (s) => {
        inflight.of(s.runId)?.suspensions.push(s)
      },
    },
    (tenant) => stepEventHooks(o.database, inflight, tenant, metrics),
  )
  const deps = {
    database: o.database,
    queues,
    registry: graphs,
    inflight,
    log: o.log,
    metrics,
    quietMs,
    // Well inside the quiet period, so a live execution is never mistaken for a lost one.
    leaseRenewMs: Math.min(5_000, Math.max(50, Math.floor(quietMs / 4))),
    ...(o.publicUrl ? { approvalLinks: { publicUrl: o.publicUrl } } : {}),
  }
  const workerOptions = {
    connection: o.connection,
    prefix,
    concurrency: o.concurrency ?? 8,
    lockDuration: o.lockDurationMs ?? 30_000,
    stalledInterval: o.stalledIntervalMs ?? 30_000,
    maxStalledCount: 5,
  }
  const workers = [
    new Worker(RUNS_QUEUE, runsProcessor(deps), workerOptions),
    new Worker(TIMERS_QUEUE, timersProcessor(deps), workerOptions),
  ]
  const secretsKey = o.secretsKey
  const listener = secretsKey ? listenForDeliveries(deps) : undefined
  if (secretsKey) {
    const settings = { ...DEFAULT_DELIVERY_SETTINGS, ...o.webhooks }
    const allow = o.http?.allow ?? []
    const processor = webhooksProcessor({ ...deps, secretsKey, allow, settings })
    workers.push(new Worker(WEBHOOKS_QUEUE, processor, workerOptions))
  } else {
    o.log.warn('no WEAVE_SECRETS_KEY: this worker sends no webhook deliveries')
  }
  for (const w of workers) {
    w.on('failed', (job, err) =>
      o.log.warn({ err, jobId: job?.id, runId: runIdOf(job?.data), queue: w.name }, 'job failed'),
    )
    w.on('error', (err) => o.log.error({ err, queue: w.name }, 'worker error'))
  }
  const reconcileEvery = o.reconcileIntervalMs ?? 30_000
  const reconciler = reconcileEvery > 0 ? startReconciler(deps, reconcileEvery) : undefined
  o.log.info(
    { queues: workers.map((w) => w.name), concurrency: workerOptions.concurrency },
    'worker started',
  )

  return {
    queues,
    metrics: registry,
    async close() {
      const reconcilerStopped = reconciler?.stop()
      const listenerClosed = listener?.close()
      const closing = Promise.all(workers.map((w) => w.close()))
      inflight.abortAll()
      await closing
      await reconcilerStopped
      await listenerClosed
      await queues.close()
      o.log.info('worker stopped')
    },
  }
}

function runIdOf(data: unknown): string | null {
  const runId = (data as { runId?: unknown } | null | undefined)?.runId
  return typeof runId === 'string' ? runId : null
}
