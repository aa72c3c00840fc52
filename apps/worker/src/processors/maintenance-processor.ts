import type { Processor } from 'bullmq'
import { runAnchorPass, type AuditAnchorDeps } from '../audit-anchors.js'
import { reconcileOnce, type ReconcilerDeps } from '../reconciler.js'
import { runRetentionPass } from '../retention.js'
import { reconcileSchedules } from '../schedules.js'
import { jobProcessor } from './job-processor.js'

/**
 * Runs the reconciler's pass when the cluster-wide job scheduler fires `reconcile`, and the audit
 * anchor pass when it fires `anchor-audit`: one worker takes each tick. A pass that did something
 * logs what. A worker without the audit signing key fails an `anchor-audit` job it takes, saying
 * so; another worker takes the next tick. `apply-retention` applies every tenant's retention
 * policies once (retention.ts).
 */
export function maintenanceProcessor(
  deps: ReconcilerDeps & { auditAnchors?: Omit<AuditAnchorDeps, 'database' | 'log'> },
): Processor {
  return jobProcessor<object>(deps.metrics, {
    reconcile: async () => {
      // Schedules first: a run a caught-up firing starts is then in the same pass's sight.
      // A failure there must not keep the runs from their repairs; it fails the job after them.
      let failure: unknown
      const schedules = await reconcileSchedules({ ...deps, jobs: deps.queues }).catch(
        (err: unknown) => {
          failure = err
          return null
        },
      )
      if (schedules && schedules.rebuilt > 0) {
        deps.log.info(schedules, 'reconciler rebuilt schedules')
      }
      const report = await reconcileOnce(deps)
      const repaired = Object.values(report).reduce((sum, count) => sum + count, 0)
      if (repaired > 0) deps.log.info(report, 'reconciler pass repaired runs')
      if (failure !== undefined) throw failure
      return { ...report, schedules }
    },
    anchorAudit: async () => {
      if (!deps.auditAnchors) throw new Error('this worker has no WEAVE_AUDIT_SIGNING_KEY')
      const report = await runAnchorPass({
        ...deps.auditAnchors,
        database: deps.database,
        log: deps.log,
      })
      if (report.anchored + report.published > 0) deps.log.info(report, 'audit chains anchored')
      return report
    },
    applyRetention: () => runRetentionPass(deps),
  })
}
