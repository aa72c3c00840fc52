import {
  countRunsByStatus,
  pendingApprovalStats,
  type Database,
  type PendingApprovalStats,
} from '@weave/db'
import type { Queue } from 'bullmq'
import type { Logger } from 'pino'
import { Counter, Gauge, type Registry } from 'prom-client'

/** What {@link registerControlPlaneMetrics} reads at scrape time. */
export interface ControlPlaneMetricsDeps {
  database: Pick<Database, 'db'>
  /** Queues whose job counts are exported, e.g. the runs and timers queues. */
  queues: readonly Pick<Queue, 'name' | 'getJobCounts'>[]
  /** How many run event streams this process has open. */
  openStreams?: () => number
  /** Where a failed collection is reported. */
  log?: Pick<Logger, 'warn'>
  /** How long one source may take before the scrape goes on without it (default 2 s). */
  timeoutMs?: number
}

/**
 * Registers gauges read at scrape time: runs by status and pending approvals of every tenant
 * (aggregates only, through SECURITY DEFINER functions), queue depth by queue and state, and
 * open event streams. A source that fails or is slow is left out of that scrape and counted in
 * `weave_metrics_collect_errors_total` (seen from the next scrape: the counter is read while the
 * gauges collect), so `/metrics` answers while Postgres or Redis is away.
 * Registering twice in one registry is a no-op.
 */
export function registerControlPlaneMetrics(
  registry: Registry,
  deps: ControlPlaneMetricsDeps,
): void {
  if (registry.getSingleMetric('weave_runs')) return
  const timeoutMs = deps.timeoutMs ?? 2_000
  const errors = new Counter({
    name: 'weave_metrics_collect_errors_total',
    help: 'Scrapes in which a metrics source (postgres, redis) failed or timed out.',
    labelNames: ['source'] as const,
    registers: [registry],
  })
  const collect = async (source: string, gauges: Gauge[], read: () => Promise<void>) => {
    try {
      await withTimeout(read(), timeoutMs)
    } catch (err) {
      for (const gauge of gauges) gauge.reset()
      errors.inc({ source })
      deps.log?.warn({ err, source }, 'metrics source failed')
    }
  }

  new Gauge({
    name: 'weave_runs',
    help: 'Runs of every tenant by status.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      await collect('postgres', [this], async () => {
        const counts = await countRunsByStatus(deps.database)
        for (const [status, count] of Object.entries(counts)) this.set({ status }, count)
      })
    },
  })
  // Both approval gauges are collected at once in a scrape; they share one query.
  let approvalStats: Promise<PendingApprovalStats> | undefined
  const readApprovalStats = () =>
    (approvalStats ??= pendingApprovalStats(deps.database).finally(() => {
      approvalStats = undefined
    }))
  new Gauge({
    name: 'weave_approvals_pending',
    help: 'Pending approvals of every tenant.',
    registers: [registry],
    async collect() {
      await collect('postgres', [this], async () => {
        this.set((await readApprovalStats()).pending)
      })
    },
  })
  new Gauge({
    name: 'weave_approvals_pending_oldest_age_seconds',
    help: 'Age of the oldest pending approval of any tenant, in seconds (0 when none).',
    registers: [registry],
    async collect() {
      await collect('postgres', [this], async () => {
        const oldest = (await readApprovalStats()).oldestCreatedAt?.getTime()
        this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000))
      })
    },
  })
  new Gauge({
    name: 'weave_queue_jobs',
    help: 'Jobs in each queue by state (waiting, active, delayed, failed, ...).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      // Each queue on its own: one that fails drops only its own series.
      const results = await Promise.allSettled(
        deps.queues.map((queue) => withTimeout(queue.getJobCounts(), timeoutMs)),
      )
      this.reset()
      results.forEach((result, i) => {
        if (result.status === 'rejected') {
          errors.inc({ source: 'redis' })
          deps.log?.warn({ err: result.reason, queue: deps.queues[i]!.name }, 'queue count failed')
          return
        }
        for (const [state, count] of Object.entries(result.value)) {
          this.set({ queue: deps.queues[i]!.name, state }, count)
        }
      })
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
