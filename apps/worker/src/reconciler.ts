import {
  chainAllPendingAudit,
  getApproval,
  hasPendingSibling,
  getRun,
  jobId,
  listElapsedTimers,
  listOverdueApprovals,
  listPendingResumes,
  listRunsInStatus,
  listUnresumedApprovals,
  readPendingResume,
  readWaitingOn,
  resumeJobOf,
  takeOverRunLease,
  withTenant,
  type ApprovalLifecycle,
  type Database,
  type KeysetCursor,
} from '@weave/db'
import type { JobQueues } from '@weave/queue'
import type { Logger } from 'pino'
import type { WorkerMetrics } from './metrics.js'
import { sweepDeliveries } from './webhooks/delivery-sweep.js'

/** What the reconciler works with. */
export interface ReconcilerDeps {
  database: Database
  queues: JobQueues
  lifecycle: ApprovalLifecycle
  log: Logger
  /** How long a run must sit unchanged before the reconciler looks at it (default 10 s). */
  quietMs?: number
  metrics?: WorkerMetrics
  /** Rows one pass looks at per kind of repair at most (default 2 000). */
  maxPerKind?: number
}

/** What one pass repaired, by kind. */
export interface ReconcileReport {
  /** Queued runs without a job, enqueued again. */
  requeued: number
  /** Running runs whose job vanished, handed to a new job. */
  recovered: number
  /** Waiting runs whose settled approval's resume was lost. */
  resumed: number
  /** Client resume requests whose job was lost. */
  resumeRequests: number
  /** Elapsed `wait` timers whose job was lost. */
  timersFired: number
  approvalsExpired: number
  /** Pending webhook deliveries without a live job, enqueued again. */
  deliveriesRequeued: number
  /** Audit events committed but left unchained (their writer stopped), chained now. */
  auditChained: number
}

/** The default quiet period: runs changed more recently are left alone. */
export const DEFAULT_RECONCILE_QUIET_MS = 10_000

const PAGE = 200

/** One kind of repair: pages through its own indexed query, and repairs one row at a time. */
interface Sweep<Row> {
  kind: keyof ReconcileReport
  page(deps: ReconcilerDeps, now: Date, after: KeysetCursor | null): Promise<Row[]>
  cursor(row: Row): KeysetCursor
  /** True when it changed something (a job really added, a lease taken, an approval expired). */
  repair(deps: ReconcilerDeps, row: Row, now: Date): Promise<boolean>
}

const sweep = <Row>(s: Sweep<Row>): Sweep<Row> => s

function quietSince(deps: ReconcilerDeps, now: Date): Date {
  return new Date(now.getTime() - (deps.quietMs ?? DEFAULT_RECONCILE_QUIET_MS))
}

const queuedRuns = sweep({
  kind: 'requeued',
  page: (deps, now, after) =>
    listRunsInStatus(deps.database, {
      status: 'queued',
      updatedBefore: quietSince(deps, now),
      after,
      limit: PAGE,
    }),
  cursor: (run) => ({ at: run.updatedAt, id: run.id }),
  repair: (deps, run) =>
    deps.queues.enqueue('run', { runId: run.id, tenant: run.tenant }, { replaceFailed: true }),
})

const staleRunningRuns = sweep({
  kind: 'recovered',
  page: (deps, now, after) =>
    listRunsInStatus(deps.database, {
      status: 'running',
      updatedBefore: quietSince(deps, now),
      after,
      limit: PAGE,
    }),
  cursor: (run) => ({ at: run.updatedAt, id: run.id }),
  async repair(deps, run, now) {
    if (run.leaseJob && (await deps.queues.hasLiveJob('runs', run.leaseJob))) return false
    const job = { runId: run.id, tenant: run.tenant, takeover: String(now.getTime()) }
    const taken = await withTenant(deps.database, run.tenant, (tx) =>
      takeOverRunLease(tx, run.id, run.leaseJob, jobId('run', job)),
    )
    if (!taken) return false
    await deps.queues.enqueue('run', job)
    return true
  },
})

const elapsedTimers = sweep({
  kind: 'timersFired',
  page: (deps, now, after) => listElapsedTimers(deps.database, { now, after, limit: PAGE }),
  cursor: (run) => ({ at: run.wakeAt, id: run.id }),
  async repair(deps, run) {
    const waitingOn = readWaitingOn(run.waitingOn)
    if (waitingOn?.kind !== 'wait') return false
    const job = {
      runId: run.id,
      tenant: run.tenant,
      reason: 'timer' as const,
      atSeq: waitingOn.atSeq,
    }
    return deps.queues.enqueue('resume', job, { replaceFailed: true })
  },
})

const pendingResumes = sweep({
  kind: 'resumeRequests',
  page: (deps, now, after) =>
    listPendingResumes(deps.database, { updatedBefore: quietSince(deps, now), after, limit: PAGE }),
  cursor: (run) => ({ at: run.updatedAt, id: run.id }),
  async repair(deps, row) {
    const run = await withTenant(deps.database, row.tenant, (tx) => getRun(tx, row.id))
    const pending = readPendingResume(run?.pendingResume)
    if (!pending) return false
    const job = { runId: row.id, tenant: row.tenant, reason: pending.reason, atSeq: pending.atSeq }
    return deps.queues.enqueue('resume', job, { replaceFailed: true })
  },
})

const unresumedApprovals = sweep({
  kind: 'resumed',
  page: (deps, now, after) =>
    listUnresumedApprovals(deps.database, {
      settledBefore: quietSince(deps, now),
      after,
      limit: PAGE,
    }),
  cursor: (approval) => ({ at: approval.settledAt, id: approval.id }),
  async repair(deps, row) {
    // An agent's call settled while another call of its turn is pending waits for that one.
    const approval = await withTenant(deps.database, row.tenant, async (tx) => {
      const found = await getApproval(tx, row.id)
      return found && !(await hasPendingSibling(tx, found)) ? found : null
    })
    const job = approval ? resumeJobOf(row.tenant, approval) : null
    if (!job) return false
    return deps.queues.enqueue('resume', job, { replaceFailed: true })
  },
})

/**
 * Repairs what Redis may have lost, from Postgres (the source of truth), one kind at a time,
 * each through its own indexed keyset query: queued runs without a job, running runs whose
 * executor went quiet, elapsed timers, client resume requests and settled approvals whose job
 * was lost, approvals past their timeout, webhook deliveries without a job, and audit events
 * whose writer stopped before chaining them. So thousands of
 * runs waiting for people never hide a lost job. Every repair is idempotent; the pass runs once
 * for the cluster (a BullMQ job scheduler), and overlapping passes are harmless anyway.
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
    resumeRequests: 0,
    timersFired: 0,
    approvalsExpired: 0,
    deliveriesRequeued: 0,
    auditChained: 0,
  }
  const failures: unknown[] = []
  const sweeps = [queuedRuns, staleRunningRuns, elapsedTimers, pendingResumes, unresumedApprovals]
  for (const s of sweeps as Array<Sweep<unknown>>) {
    await runSweep(deps, s, now, report).catch((err: unknown) => failures.push(err))
  }
  await expireOverdueApprovals(deps, now, report).catch((err: unknown) => failures.push(err))
  await sweepDeliveries(deps, now)
    .then((count) => {
      report.deliveriesRequeued += count
    })
    .catch((err: unknown) => failures.push(err))
  await chainAllPendingAudit(deps.database.pool)
    .then((count) => {
      report.auditChained += count
      if (count > 0) deps.log.info({ repair: 'auditChained', count }, 'reconciler repaired')
    })
    .catch((err: unknown) => failures.push(err))
  deps.metrics?.recordRepairs({ ...report })
  if (failures.length > 0) throw new AggregateError(failures, 'reconciler sweeps failed')
  return report
}

async function runSweep<Row>(
  deps: ReconcilerDeps,
  s: Sweep<Row>,
  now: Date,
  report: ReconcileReport,
): Promise<void> {
  const max = deps.maxPerKind ?? 2_000
  let after: KeysetCursor | null = null
  for (let seen = 0; seen < max;) {
    const rows = await s.page(deps, now, after)
    for (const row of rows) {
      if (await s.repair(deps, row, now)) {
        report[s.kind] += 1
        deps.log.info({ repair: s.kind, row }, 'reconciler repaired')
      }
    }
    seen += rows.length
    if (rows.length < PAGE) return
    after = s.cursor(rows.at(-1)!)
  }
}

/** Pending approvals past their timeout, whose timer job may have been lost. */
async function expireOverdueApprovals(
  deps: ReconcilerDeps,
  now: Date,
  report: ReconcileReport,
): Promise<void> {
  for (const approval of await listOverdueApprovals(deps.database, { now, limit: 500 })) {
    const { expired } = await deps.lifecycle.expire(approval.tenant, approval.id)
    if (!expired) continue
    report.approvalsExpired += 1
    deps.log.info(
      { runId: approval.runId, tenant: approval.tenant, approvalId: approval.id },
      'reconciler expired an approval',
    )
  }
}
