import {
  countRunsByStatus,
  pendingApprovalStats,
  type Database,
  type PendingApprovalStats,
} from '@weave/db'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import { Counter, Gauge, type Registry } from 'prom-client'

/** What {@link registerControlPlaneMetrics} reads, at most once per refresh interval. */
export interface ControlPlaneMetricsDeps {
  database: Pick<Database, 'db'>
  /** Queues whose job counts are exported, e.g. the runs and timers queues. */
  queues: readonly Pick<Queue, 'name' | 'getJobCounts'>[]
  /** How many run event streams this process has open. */
  openStreams?: () => number
  /** Where a failed collection is reported. */
  log?: Pick<Logger, 'warn'>
  /** How long one source may take before the refresh goes on without it (default 2 s). */
  timeoutMs?: number
  /** The least time between two reads of Postgres and Redis (default 15 s, WEAVE_METRICS_REFRESH_MS). */
  refreshMs?: number
  /** Milliseconds since the epoch; `Date.now` unless a test drives the clock. */
  now?: () => number
}

/** One read of every source; a source that failed is absent. */
interface Snapshot {
  runs?: Record<string, number>
  approvals?: PendingApprovalStats
  queues: { name: string; counts: Record<string, number> }[]
}

/**
 * Registers gauges of runs by status and pending approvals of every tenant (aggregates only,
 * through SECURITY DEFINER functions), queue depth by queue and state, and open event streams.
 * Postgres and Redis are read at most once per `refreshMs`, whatever the scrape rate: a scrape
 * within the interval answers from the last read, and concurrent scrapes share one read
 * (control-plane-metrics.int.test.ts). Reads are counted in `weave_metrics_refreshes_total`; a
 * source that fails or is slow is left out until the next read and counted in
 * `weave_metrics_collect_errors_total`, so `/metrics` answers while Postgres or Redis is away.
 * Registering twice in one registry is a no-op.
 */
export function registerControlPlaneMetrics(
  registry: Registry,
  deps: ControlPlaneMetricsDeps,
): void {
  if (registry.getSingleMetric('weave_runs')) return
  const timeoutMs = deps.timeoutMs ?? 2_000
  const refreshMs = deps.refreshMs ?? 15_000
  const now = deps.now ?? Date.now
  const errors = new Counter({
    name: 'weave_metrics_collect_errors_total',
    help: 'Refreshes of the control-plane gauges in which a source (postgres, redis) failed or timed out.',
    labelNames: ['source'] as const,
    registers: [registry],
  })
  const refreshes = new Counter({
    name: 'weave_metrics_refreshes_total',
    help: 'Reads of the control-plane gauges from Postgres and Redis (at most one per refresh interval).',
    registers: [registry],
  })

  const failed = (source: string, err: unknown, details: Record<string, unknown> = {}) => {
    errors.inc({ source })
    deps.log?.warn({ err, source, ...details }, 'metrics source failed')
  }
  const read = async (): Promise<Snapshot> => {
    refreshes.inc()
    const [runs, approvals, ...queues] = await Promise.allSettled([
      withTimeout(countRunsByStatus(deps.database), timeoutMs),
      withTimeout(pendingApprovalStats(deps.database), timeoutMs),
      ...deps.queues.map((queue) => withTimeout(queue.getJobCounts(), timeoutMs)),
    ] as const)
    const snapshot: Snapshot = { queues: [] }
    if (runs.status === 'fulfilled') snapshot.runs = runs.value
    else failed('postgres', runs.reason)
    if (approvals.status === 'fulfilled') snapshot.approvals = approvals.value
    else failed('postgres', approvals.reason)
    // Each queue on its own: one that fails drops only its own series.
    queues.forEach((result, i) => {
      const name = deps.queues[i]!.name
      if (result.status === 'fulfilled') snapshot.queues.push({ name, counts: result.value })
      else failed('redis', result.reason, { queue: name })
    })
    return snapshot
  }
  let last: { at: number; snapshot: Promise<Snapshot> } | undefined
  const latest = (): Promise<Snapshot> => {
    if (!last || now() - last.at >= refreshMs) last = { at: now(), snapshot: read() }
    return last.snapshot
  }

  new Gauge({
    name: 'weave_runs',
    help: 'Runs of every tenant by status.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const { runs } = await latest()
      this.reset()
      for (const [status, count] of Object.entries(runs ?? {})) this.set({ status }, count)
    },
  })
  new Gauge({
    name: 'weave_approvals_pending',
    help: 'Pending approvals of every tenant.',
    registers: [registry],
    async collect() {
      const { approvals } = await latest()
      this.reset()
      if (approvals) this.set(approvals.pending)
    },
  })
  new Gauge({
    name: 'weave_approvals_pending_oldest_age_seconds',
    help: 'Age of the oldest pending approval of any tenant, in seconds (0 when none).',
    registers: [registry],
    async collect() {
      const { approvals } = await latest()
      this.reset()
      if (!approvals) return
      const oldest = approvals.oldestCreatedAt?.getTime()
      // Computed at scrape time, so the age grows between reads.
      this.set(oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1000))
    },
  })
  new Gauge({
    name: 'weave_queue_jobs',
    help: 'Jobs in each queue by state (waiting, active, delayed, failed, ...).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      const { queues } = await latest()
      this.reset()
      for (const { name, counts } of queues) {
        for (const [state, count] of Object.entries(counts)) this.set({ queue: name, state }, count)
      }
    },
  })
  new Gauge({
    name: 'weave_sse_streams',
    help: 'Run event streams (SSE) open in this process.',
    registers: [registry],
    collect() {
      this.set(deps.openStreams?.() ?? 0)
    },
  })
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
