import { GraphRegistry, RUNS_QUEUE, TIMERS_QUEUE } from '@weave/db'
import { createJobQueues, type JobQueues } from '@weave/queue'
import { Worker } from 'bullmq'
import { Inflight } from './inflight.js'
import { runsProcessor } from './processors/runs-processor.js'
import { timersProcessor } from './processors/timers-processor.js'
import { startReconciler } from './reconciler.js'
import { stepEventHooks } from './step-events.js'
import type { WorkerOptions } from './worker-options.js'

/** A started worker. */
export interface RunningWorker {
  queues: JobQueues
  /** Stops taking jobs, stops current runs at their next step boundary, and closes the queues. */
  close(): Promise<void>
}

/** Starts the BullMQ workers of the runs and timers queues, and the reconciler. */
export function startWorker(o: WorkerOptions): RunningWorker {
  const prefix = o.prefix ?? 'weave'
  const queues = createJobQueues({ connection: o.connection, prefix })
  const inflight = new Inflight()
  const registry = new GraphRegistry(
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
    (tenant) => stepEventHooks(o.database, inflight, tenant),
  )
  const deps = { database: o.database, queues, registry, inflight, log: o.log }
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
  for (const w of workers) {
    w.on('failed', (job, err) => o.log.warn({ err, jobId: job?.id, queue: w.name }, 'job failed'))
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
    async close() {
      const closing = Promise.all(workers.map((w) => w.close()))
      inflight.abortAll()
      await closing
      await reconciler?.stop()
      await queues.close()
      o.log.info('worker stopped')
    },
  }
}
