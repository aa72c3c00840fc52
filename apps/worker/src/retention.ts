import { applyRetention, type Database, type RetentionReport } from '@weave/db'
import type { Logger } from 'pino'
import type { WorkerMetrics } from './metrics.js'

/** The actor of retention's deletions in the audit log. */
export const RETENTION_ACTOR = 'system:retention'

/**
 * How long one pass goes on: the maintenance queue runs one job at a time, so a long backlog is
 * worked off over several passes rather than keeping the reconciler waiting.
 */
export const RETENTION_PASS_BUDGET_MS = 30_000

/** What the retention job needs. */
export interface RetentionDeps {
  database: Database
  log: Pick<Logger, 'info'>
  metrics?: WorkerMetrics
}

/**
 * One retention pass over every tenant (applyRetention): logs and counts what it removed, so an
 * operator sees each pass's work; a pass that removed nothing logs nothing.
 */
export async function runRetentionPass(deps: RetentionDeps): Promise<RetentionReport> {
  const report = await applyRetention(deps.database, {
    actor: RETENTION_ACTOR,
    budgetMs: RETENTION_PASS_BUDGET_MS,
  })
  const removed = {
    checkpoints: report.checkpointsPruned + report.runCheckpointsDeleted,
    runs: report.runsDeleted,
    events: report.eventsDeleted,
    deliveries: report.deliveriesDeleted,
    approvals: report.approvalsDeleted,
  }
  deps.metrics?.recordRetention(removed)
  if (Object.values(removed).some((count) => count > 0)) {
    deps.log.info(report, 'retention pass removed rows')
  }
  return report
}
