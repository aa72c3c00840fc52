import type { Processor } from 'bullmq'
import { reconcileOnce, type ReconcilerDeps } from '../reconciler.js'
import { jobProcessor } from './job-processor.js'

/**
 * Runs the reconciler's pass when the cluster-wide job scheduler fires `reconcile`: one worker
 * takes each tick. A pass that repaired something logs what.
 */
export function maintenanceProcessor(deps: ReconcilerDeps): Processor {
  return jobProcessor(deps.metrics, {
    reconcile: async () => {
      const report = await reconcileOnce(deps)
      const repaired = Object.values(report).reduce((sum, count) => sum + count, 0)
      if (repaired > 0) deps.log.info(report, 'reconciler pass repaired runs')
      return report
    },
  })
}
