import {
  JOB_NAMES,
  getApproval,
  getRun,
  listOverdueApprovals,
  listRunsToReconcile,
  settledApprovalResumeJob,
  takeOverRunLease,
  withTenant,
  type Database,
  type RunToReconcile,
} from '@weave/db'
import type { JobQueues } from '@weave/queue'
import type { Logger } from 'pino'
import { expireOverdueApproval } from './expire-approval.js'
import { sweepDeliveries } from './webhooks/delivery-sweep.js'
import type { WorkerMetrics } from './metrics.js'

/** What the reconciler works with. */
export interface ReconcilerDeps {
  database: Database
  queues: JobQueues
  log: Logger
  /** How long a run must sit unchanged before the reconciler looks at it (default 10 s). */
  quietMs?: number
  metrics?: WorkerMetrics
}

/** What one pass did. */
export interface ReconcileReport {
  requeued: number
  recovered: number
  /** Waiting runs whose approval had settled but whose resume job was lost. */
  resumed: number
  timersFired: number
  approvalsExpired: number
  /** Pending webhook deliveries without a live job, enqueued again. */
  deliveriesRequeued: number
}

/** One repair over one kind of thing Redis may have lost; counts what it did in `report`. */
type Sweep = (deps: ReconcilerDeps, now: Date, report: ReconcileReport) => Promise<void>

/** The default quiet period: runs changed more recently are left alone. */
export const DEFAULT_RECONCILE_QUIET_MS = 10_000

/**
 * Repairs what Redis may have lost, from Postgres (the source of truth): queued runs without a
 * job, running runs whose job no longer exists and whose executor stopped renewing the lease,
 * `wait` timers past due, settled approvals whose resume was lost, and approvals past their
 * timeout. Every action is idempotent, so overlapping passes of several workers are harmless.
 * Every sweep runs even when an earlier one fails.
 * @throws AggregateError of the sweeps that failed, after all ran
 */
export async function reconcileOnce(
  deps: ReconcilerDeps,
  now = new Date(),
): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    requeued: 0,
    recovered: 0,
    resumed: 0,
    timersFired: 0,
    approvalsExpired: 0,
    deliveriesRequeued: 0,
  }
  const failures: unknown[] = []
  for (const sweep of SWEEPS) await sweep(deps, now, report).catch((err) => failures.push(err))
  deps.metrics?.recordRepairs({ ...report })
  if (failures.length > 0) throw new AggregateError(failures, 'reconciler sweeps failed')
  return report
}

/** Runs left unchanged for the quiet period: each gets the one repair its status calls for. */
const sweepRuns: Sweep = async (deps, now, report) => {
  const quietSince = new Date(now.getTime() - (deps.quietMs ?? DEFAULT_RECONCILE_QUIET_MS))
  const stale = await listRunsToReconcile(deps.database, {
    statuses: ['queued', 'running', 'waiting'],
    updatedBefore: quietSince,
    limit: 500,
  })
  for (const run of stale) {
    const repair = await repairRun(deps, run, now)
    if (repair === undefined) continue
    report[repair] += 1
    deps.log.info({ runId: run.id, tenant: run.tenant, repair }, 'reconciler repaired a run')
  }
}

/** Pending approvals past their timeout, whose timer job may have been lost. */
const sweepOverdueApprovals: Sweep = async (deps, now, report) => {
  for (const approval of await listOverdueApprovals(deps.database, { now, limit: 500 })) {
    const { outcome } = await expireOverdueApproval(deps, approval.tenant, approval.id)
    if (outcome !== 'expired') continue
    report.approvalsExpired += 1
    deps.log.info(
      { runId: approval.runId, tenant: approval.tenant, approvalId: approval.id },
      'reconciler expired an approval',
    )
  }
}

/** Pending webhook deliveries whose announcement was missed or whose job Redis lost. */
const sweepLostDeliveries: Sweep = async (deps, now, report) => {
  report.deliveriesRequeued += await sweepDeliveries(deps, now)
}

const SWEEPS: readonly Sweep[] = [sweepRuns, sweepOverdueApprovals, sweepLostDeliveries]

type RunRepair = 'requeued' | 'recovered' | 'resumed' | 'timersFired'

async function repairRun(
  deps: ReconcilerDeps,
  run: RunToReconcile,
  now: Date,
): Promise<RunRepair | undefined> {
  if (run.status === 'queued') {
    if (await deps.queues.hasLiveJob('runs', run.id)) return undefined
    await deps.queues.enqueueRun({ runId: run.id, tenant: run.tenant })
    return 'requeued'
  }
  if (run.status === 'running') {
    return (await recoverRunning(deps, run.tenant, run.id)) ? 'recovered' : undefined
  }
  if (await resumeSettledApproval(deps, run.tenant, run.waitingOn)) return 'resumed'
  if (!isElapsedWait(run.waitingOn, now)) return undefined
  const atSeq = Number((run.waitingOn as { atSeq?: unknown }).atSeq ?? 0)
  await deps.queues.enqueueResume(`wait-${run.id}-${atSeq}`, {
    runId: run.id,
    tenant: run.tenant,
    input: {},
    reason: 'timer',
    atSeq,
  })
  return 'timersFired'
}

/**
 * Re-enqueues the resume of a run still waiting on an approval that has settled: the API commits
 * the decision, then enqueues; a Redis outage in between would leave the run waiting forever.
 * The job id derives from the approval, so a resume already queued is not doubled.
 */
async function resumeSettledApproval(
  deps: ReconcilerDeps,
  tenant: string,
  waitingOn: unknown,
): Promise<boolean> {
  const w = waitingOn as { kind?: unknown; approvalId?: unknown } | null
  if (w?.kind !== 'approval' || typeof w.approvalId !== 'string') return false
  const approvalId = w.approvalId
  const job = await withTenant(deps.database, tenant, async (tx) => {
    const approval = await getApproval(tx, approvalId)
    return approval ? settledApprovalResumeJob(tx, approval) : null
  })
  if (!job) return false
  await deps.queues.enqueueResume(approvalId, job)
  return true
}

/** Gives a running run whose job vanished a new job that may take its lease. */
async function recoverRunning(
  deps: ReconcilerDeps,
  tenant: string,
  runId: string,
): Promise<boolean> {
  const run = await withTenant(deps.database, tenant, (tx) => getRun(tx, runId))
  if (!run || run.status !== 'running') return false
  if (run.leaseJob && (await deps.queues.hasLiveJob('runs', run.leaseJob))) return false
  const jobId = `recover-${runId}-${Date.now()}`
  const taken = await withTenant(deps.database, tenant, (tx) =>
    takeOverRunLease(tx, runId, run.leaseJob, jobId),
  )
  if (!taken) return false
  await deps.queues.runs.add(JOB_NAMES.run, { runId, tenant }, { jobId })
  return true
}

function isElapsedWait(waitingOn: unknown, now: Date): boolean {
  if (typeof waitingOn !== 'object' || waitingOn === null) return false
  const w = waitingOn as { kind?: unknown; until?: unknown }
  return (
    w.kind === 'wait' && typeof w.until === 'string' && new Date(w.until).getTime() <= now.getTime()
  )
}

/**
 * Runs `reconcileOnce` every `intervalMs` until stopped; a failed pass is logged and retried next
 * time, and a tick that finds the previous pass still running is skipped rather than queued.
 */
export function startReconciler(
  deps: ReconcilerDeps,
  intervalMs: number,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined
  const pass = async (): Promise<void> => {
    try {
      const report = await reconcileOnce(deps)
      const acted = Object.values(report).reduce((sum, count) => sum + count, 0)
      if (acted > 0) deps.log.info(report, 'reconciler pass repaired runs')
    } catch (err) {
      deps.log.warn({ err }, 'reconciler pass failed')
    }
  }
  const timer = setInterval(() => {
    running ??= pass().finally(() => {
      running = undefined
    })
  }, intervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
