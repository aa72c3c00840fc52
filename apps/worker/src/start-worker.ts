import { trace } from '@opentelemetry/api'
import { createApprovalLifecycle, createAuditSigner, GraphRegistry, QUEUES } from '@weave/db'
import { createJobQueues, type DependencyHealth, type JobQueues } from '@weave/queue'
import { Worker } from 'bullmq'
import { Registry } from 'prom-client'
import { approvalDecisions } from './execution/approval-decisions.js'
import { stepHooks } from './execution/step-hooks.js'
import { Inflight, stepKey } from './inflight.js'
import { createWorkerMetrics } from './metrics.js'
import { maintenanceProcessor } from './processors/maintenance-processor.js'
import { runsProcessor } from './processors/runs-processor.js'
import { timersProcessor } from './processors/timers-processor.js'
import { webhooksProcessor } from './processors/webhooks-processor.js'
import { DEFAULT_RECONCILE_QUIET_MS } from './reconciler.js'
import { listenForDeliveries } from './webhooks/delivery-listener.js'
import { watchWorkerDependencies } from './worker-health.js'
import { stepSpans, WORKER_TRACER } from './tracing.js'
import { DEFAULT_DELIVERY_SETTINGS } from './webhooks/delivery-settings.js'
import {
  DEFAULT_ANCHOR_INTERVAL_MS,
  DEFAULT_MAX_STATE_BYTES,
  DEFAULT_RETENTION_INTERVAL_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type WorkerOptions,
} from './worker-options.js'

/** A started worker. */
export interface RunningWorker {
  queues: JobQueues
  /** The registry the worker records its metrics in. */
  metrics: Registry
  /** How many runs this worker is executing now. */
  runsInFlight(): number
  /**
   * Stops taking jobs and stops current runs at their next step boundary: a step in flight may
   * finish (an outside call is not cut off and sent again) for up to the shutdown grace, then it
   * is aborted. Runs stopped so go back to the queue. Closes the queues.
   */
  close(): Promise<void>
}

/**
 * Starts the BullMQ workers of the runs, timers and maintenance queues (the reconciler, fired by
 * a cluster-wide job scheduler); with a secrets key, the webhooks queue's worker and the listener
 * that enqueues new deliveries too.
 */
export function startWorker(o: WorkerOptions): RunningWorker {
  const prefix = o.prefix ?? 'weave'
  const queues = createJobQueues({
    connection: o.connection,
    prefix,
    onError: (err, queue) => {
      if (!health.report(err)) o.log.error({ err, queue }, 'queue error')
    },
  })
  const ownHealth = o.health ? undefined : watchWorkerDependencies(o.database, queues, o.log)
  const health: DependencyHealth = o.health ?? ownHealth!
  const inflight = new Inflight()
  const registry = o.metrics ?? new Registry()
  const metrics = createWorkerMetrics(registry)
  const quietMs = o.reconcileQuietMs ?? DEFAULT_RECONCILE_QUIET_MS
  const lockDuration = o.lockDurationMs ?? 30_000
  const lifecycle = createApprovalLifecycle({ database: o.database, jobs: queues, log: o.log })
  const hooks = stepHooks({
    database: o.database,
    inflight,
    metrics,
    leaseCheckMs: Math.max(50, Math.floor(Math.min(lockDuration, quietMs) / 4)),
  })
  const decisions = approvalDecisions(lifecycle, inflight)
  const tracer = o.tracer ?? trace.getTracer(WORKER_TRACER)
  const graphs = new GraphRegistry(
    o.database,
    {
      ...(o.handlers ? { handlers: o.handlers } : {}),
      http: {
        allow: [],
        ...o.http,
        // A step retried after a failure keeps the key of its first attempt.
        idempotencyKey: ({ runId, step, seq }) =>
          `${runId}:${step}:${inflight.of(runId)?.attemptSeqs.get(runId) ?? seq}`,
      },
      ...(o.llm ? { llm: o.llm } : {}),
      ...(o.maxima ? { maxima: o.maxima } : {}),
      // A run must not go on past a step whose checkpoint was not written.
      checkpointPolicy: 'required',
      aroundStep: stepSpans(tracer),
      // What an agent step did goes into the record with the checkpoint of its unit of work.
      agentEvents: (at, events) => {
        inflight.of(at.runId)?.stepEvents.set(stepKey(at.runId, at.seq), events)
      },
    },
    () => ({ hooks, approvals: decisions }),
  )
  const deps = {
    database: o.database,
    jobs: queues,
    queues,
    lifecycle,
    registry: graphs,
    inflight,
    log: o.log,
    metrics,
    tracer,
    health,
    quietMs,
    maxStateBytes: o.maxStateBytes ?? DEFAULT_MAX_STATE_BYTES,
    // Well inside the quiet period, so a live execution is never mistaken for a lost one.
    leaseRenewMs: Math.min(5_000, Math.max(50, Math.floor(quietMs / 4))),
  }
  const workerOptions = {
    connection: o.connection,
    prefix,
    concurrency: o.concurrency ?? 8,
    lockDuration,
    stalledInterval: o.stalledIntervalMs ?? 30_000,
    maxStalledCount: 5,
  }
  const workers = [
    new Worker(QUEUES.runs, runsProcessor(deps), workerOptions),
    new Worker(QUEUES.timers, timersProcessor(deps), workerOptions),
    new Worker(QUEUES.maintenance, maintenanceProcessor({ ...deps, ...auditAnchorsOf(o) }), {
      ...workerOptions,
      concurrency: 1,
    }),
  ]
  const secretsKey = o.secretsKey
  const listener = secretsKey ? listenForDeliveries(deps) : undefined
  if (secretsKey) {
    const settings = { ...DEFAULT_DELIVERY_SETTINGS, ...o.webhooks }
    const allow = o.http?.allow ?? []
    const processor = webhooksProcessor({
      ...deps,
      secretsKey,
      allow,
      settings,
      ...(o.publicUrl ? { approvalLinks: { publicUrl: o.publicUrl } } : {}),
    })
    workers.push(new Worker(QUEUES.webhooks, processor, workerOptions))
  } else {
    o.log.warn('no WEAVE_SECRETS_KEY: this worker sends no webhook deliveries')
  }
  for (const w of workers) {
    w.on('failed', (job, err) => {
      const fields = { err, jobId: job?.id, runId: runIdOf(job?.data), queue: w.name }
      // A job failed by an outage is retried; the outage itself is told once, by `health`.
      if (health.report(err)) o.log.debug(fields, 'job failed')
      else o.log.warn(fields, 'job failed')
    })
    w.on('error', (err) => {
      // Redis lost a job this worker held (a flush, a failover without persistence): the run's
      // rows are intact and the reconciler enqueues it again, so this is a warning, not a fault.
      if (MISSING_JOB.test(err.message)) {
        o.log.warn({ ...errorSummary(err), queue: w.name }, 'a job vanished from Redis')
      } else if (!health.report(err)) o.log.error({ err, queue: w.name }, 'worker error')
    })
  }
  const reconcileEvery = o.reconcileIntervalMs ?? 30_000
  let reschedule: NodeJS.Timeout | undefined
  if (reconcileEvery > 0) {
    const schedule = () =>
      queues.scheduleReconciler(reconcileEvery).catch((err: unknown) => {
        if (health.report(err)) return
        o.log.warn(
          { err: errorSummary(err) },
          'reconciler schedule not set; it is set again at the next interval',
        )
      })
    void schedule()
    // Setting the schedule again each interval is idempotent, and it restores the scheduler when
    // Redis lost it (a flush, a failover without persistence): the reconciler is what repairs the
    // queues after such a loss, so it must not be lost with them.
    reschedule = setInterval(() => void schedule(), reconcileEvery)
    reschedule.unref()
  }
  const anchorEvery = o.auditAnchors ? (o.auditAnchors.intervalMs ?? DEFAULT_ANCHOR_INTERVAL_MS) : 0
  let rescheduleAnchors: NodeJS.Timeout | undefined
  if (anchorEvery > 0) {
    const schedule = () =>
      queues.scheduleAuditAnchors(anchorEvery).catch((err: unknown) => {
        if (health.report(err)) return
        o.log.warn(
          { err: errorSummary(err) },
          'audit anchor schedule not set; it is set again later',
        )
      })
    void schedule()
    // Set again now and then, so a Redis that lost the scheduler gets it back.
    rescheduleAnchors = setInterval(() => void schedule(), Math.min(anchorEvery, 300_000))
    rescheduleAnchors.unref()
  } else if (!o.auditAnchors) {
    o.log.warn('no WEAVE_AUDIT_SIGNING_KEY: this worker anchors no audit chains')
  }
  const retentionEvery = o.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS
  let rescheduleRetention: NodeJS.Timeout | undefined
  if (retentionEvery > 0) {
    const schedule = () =>
      queues.scheduleRetention(retentionEvery).catch((err: unknown) => {
        if (health.report(err)) return
        o.log.warn({ err: errorSummary(err) }, 'retention schedule not set; it is set again later')
      })
    void schedule()
    // Set again now and then, so a Redis that lost the scheduler gets it back.
    rescheduleRetention = setInterval(() => void schedule(), Math.min(retentionEvery, 300_000))
    rescheduleRetention.unref()
  }
  o.log.info(
    { queues: workers.map((w) => w.name), concurrency: workerOptions.concurrency },
    'worker started',
  )

  return {
    queues,
    metrics: registry,
    runsInFlight: () => inflight.size,
    async close() {
      clearInterval(reschedule)
      clearInterval(rescheduleAnchors)
      clearInterval(rescheduleRetention)
      const listenerClosed = listener?.close()
      inflight.stopAll()
      const grace = setTimeout(
        () => inflight.abortAll(),
        o.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
      )
      grace.unref()
      try {
        await closeWorkers(workers, { health, inflight })
      } finally {
        clearTimeout(grace)
      }
      await listenerClosed
      await queues.close()
      ownHealth?.close()
      o.log.info('worker stopped')
    },
  }
}

/**
 * Closes the BullMQ workers: each waits for its jobs in flight, then says goodbye to Redis. While
 * Redis is away that goodbye waits for it to return (QUIT sits in ioredis's offline queue), so
 * once Redis is down and this worker's runs have stopped (nothing is left to hand back), the
 * connections are ended instead and the close is not awaited: what it still waits for are
 * commands the ended clients will never send. The jobs they held are retaken as stalled.
 */
async function closeWorkers(
  workers: Worker[],
  o: { health: DependencyHealth; inflight: Inflight },
): Promise<void> {
  const closed = Promise.all(workers.map((w) => w.close()))
  const redisAway = o.health.whenDown('redis').then(() => o.inflight.drained())
  const first = await Promise.race([closed.then(() => 'closed'), redisAway.then(() => 'away')])
  if (first === 'closed') return
  closed.catch(() => undefined)
  await Promise.all(workers.map(endConnections))
}

/**
 * Ends a worker's Redis clients without waiting for them to say so: BullMQ's `disconnect` waits
 * for an `end` event that a client between two reconnect attempts never emits. Ending one stops
 * its reconnect timer, so nothing of it keeps the process alive.
 */
async function endConnections(worker: Worker): Promise<void> {
  const backend = worker.getBackend()
  for (const client of [backend.client, backend.blockingClient]) {
    if (client) (await client).disconnect()
  }
}

function auditAnchorsOf(o: WorkerOptions) {
  if (!o.auditAnchors) return {}
  const { signingKey, webhookUrl } = o.auditAnchors
  return {
    auditAnchors: {
      signer: createAuditSigner(signingKey),
      ...(webhookUrl === undefined ? {} : { webhookUrl }),
    },
  }
}

/** BullMQ's message when a job's keys are gone from Redis while a worker still holds it. */
const MISSING_JOB = /^Missing key for job /

function errorSummary(err: unknown): { message: string; code?: unknown } {
  if (!(err instanceof Error)) return { message: String(err) }
  const code = (err as { code?: unknown }).code
  return code === undefined ? { message: err.message } : { message: err.message, code }
}

function runIdOf(data: unknown): string | null {
  const runId = (data as { runId?: unknown } | null | undefined)?.runId
  return typeof runId === 'string' ? runId : null
}
