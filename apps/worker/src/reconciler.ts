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
} from '@weave/db'
import type { JobQueues } from '@weave/queue'
import type { Logger } from 'pino'
import { expireOverdueApproval } from './expire-approval.js'

export interface ReconcilerDeps {
  database: Database
  queues: JobQueues
  log: Logger
}

/** What one pass did. */
export interface ReconcileReport {
  requeued: number
  recovered: number
  /** Waiting runs whose approval had settled but whose resume job was lost. */
  resumed: number
  timersFired: number
  approvalsExpired: number
}

/** How long a run must sit unchanged before the reconciler looks at it. */
const QUIET_MS = 10_000

/**
 * Repairs what Redis may have lost, from Postgres (the source of truth): queued runs without a
 * job, running runs whose job no longer exists, `wait` timers past due, and approvals past their
 * timeout. Every action is idempotent, so overlapping passes of several workers are harmless.
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
  }
  const quietSince = new Date(now.getTime() - QUIET_MS)
  const stale = await listRunsToReconcile(deps.database, {
    statuses: ['queued', 'running', 'waiting'],
    updatedBefore: quietSince,
    limit: 500,
  })
  for (const run of stale) {
    if (run.status === 'queued') {
      if (!(await deps.queues.hasLiveJob('runs', run.id))) {
        await deps.queues.enqueueRun({ runId: run.id, tenant: run.tenant })
        report.requeued += 1
      }
    } else if (run.status === 'running') {
      if (await recoverRunning(deps, run.tenant, run.id)) report.recovered += 1
    } else if (await resumeSettledApproval(deps, run.tenant, run.waitingOn)) {
      report.resumed += 1
    } else if (isElapsedWait(run.waitingOn, now)) {
      const atSeq = Number((run.waitingOn as { atSeq?: unknown }).atSeq ?? 0)
      await deps.queues.enqueueResume(`wait-${run.id}-${atSeq}`, {
        runId: run.id,
        tenant: run.tenant,
        input: {},
        reason: 'timer',
        atSeq,
      })
      report.timersFired += 1
    }
  }
  for (const approval of await listOverdueApprovals(deps.database, { now, limit: 500 })) {
    const outcome = await expireOverdueApproval(deps, approval.tenant, approval.id)
    if (outcome === 'expired') report.approvalsExpired += 1
  }
  return report
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

/** Runs `reconcileOnce` every `intervalMs` until stopped; a failed pass is logged and retried next time. */
export function startReconciler(
  deps: ReconcilerDeps,
  intervalMs: number,
): { stop(): Promise<void> } {
  let pass: Promise<void> = Promise.resolve()
  const timer = setInterval(() => {
    pass = pass.then(async () => {
      try {
        const report = await reconcileOnce(deps)
        const acted =
          report.requeued + report.recovered + report.timersFired + report.approvalsExpired
        if (acted > 0) deps.log.info(report, 'reconciler repaired runs')
      } catch (err) {
        deps.log.warn({ err }, 'reconciler pass failed')
      }
    })
  }, intervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await pass
    },
  }
}
