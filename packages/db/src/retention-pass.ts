import { withTenant, type Database } from './client.js'
import { listExpiredRuns, listRunsToRetain } from './retention-policies.js'
import { deleteExpiredRuns, pruneRunCheckpoints } from './retention-prune.js'
import { deleteExpiredRunEventWatches } from './run-event-watches.js'

/** What one retention pass removed, summed over tenants. */
export interface RetentionReport {
  /** Finished runs whose policy was applied (their history pruned, their expiry set). */
  runsRetained: number
  /** History entries deleted from finished runs that are kept. */
  checkpointsPruned: number
  /** Runs deleted because their time had come, and what went with them. */
  runsDeleted: number
  runCheckpointsDeleted: number
  eventsDeleted: number
  deliveriesDeleted: number
  approvalsDeleted: number
  /** Runs left for a later pass: resumed meanwhile, held by a request, or still needed. */
  runsSkipped: number
  /** Expired watches of event streams that went away without removing them (every tenant's). */
  watchesDeleted: number
  /** False when the pass stopped at its time budget with work left for the next one. */
  complete: boolean
}

/** How one pass works through its rows. */
export interface RetentionPassOptions {
  /** The time expiries are compared with (default now). */
  now?: Date
  /** History entries deleted per transaction (default 500). */
  checkpointBatch?: number
  /** Runs deleted per transaction (default 50). */
  runBatch?: number
  /** The actor of the audit events recording deleted runs. */
  actor: string
  /**
   * How long the pass may go on starting transactions, in ms (default: until done). A pass that
   * shares its queue with other maintenance stops there and leaves the rest to the next one.
   */
  budgetMs?: number
}

const PAGE = 200

/**
 * Applies every tenant's retention policies once: first to finished runs not visited since their
 * last checkpoint (their history is pruned to what the policy keeps, their expiry set), then
 * deletes runs whose expiry has passed. Each transaction touches one run's history entries or a
 * few runs, never more than a batch, and locks only rows of finished runs, so runs executing
 * meanwhile write their checkpoints unhindered (retention.int.test.ts). Expired run event watches
 * go first, in one statement.
 */
export async function applyRetention(
  database: Pick<Database, 'db'>,
  o: RetentionPassOptions,
): Promise<RetentionReport> {
  const now = o.now ?? new Date()
  const checkpointBatch = o.checkpointBatch ?? 500
  const runBatch = o.runBatch ?? 50
  const deadline = o.budgetMs === undefined ? Infinity : Date.now() + o.budgetMs
  const outOfTime = () => Date.now() >= deadline
  const report: RetentionReport = {
    runsRetained: 0,
    checkpointsPruned: 0,
    runsDeleted: 0,
    runCheckpointsDeleted: 0,
    eventsDeleted: 0,
    deliveriesDeleted: 0,
    approvalsDeleted: 0,
    runsSkipped: 0,
    watchesDeleted: await deleteExpiredRunEventWatches(database, now),
    complete: true,
  }
  let after: { at: Date; id: string } | null = null
  for (;;) {
    const page = await listRunsToRetain(database, { after, limit: PAGE })
    for (const run of page) {
      for (;;) {
        if (outOfTime()) return { ...report, complete: false }
        const result = await withTenant(database, run.tenant, (tx) =>
          pruneRunCheckpoints(tx, {
            runId: run.id,
            seenSeq: run.checkpointSeq,
            keepHistory: run.keepHistory,
            expiresAt: run.expiresAt,
            batchSize: checkpointBatch,
          }),
        )
        report.checkpointsPruned += result.deleted
        if (!result.done) continue
        if (result.skipped) report.runsSkipped += 1
        else report.runsRetained += 1
        break
      }
    }
    if (page.length < PAGE) break
    const last = page.at(-1)!
    after = { at: last.finishedAt, id: last.id }
  }
  let expiredAfter: { at: Date; id: string } | null = null
  for (;;) {
    const page = await listExpiredRuns(database, { now, after: expiredAfter, limit: PAGE })
    const byTenant = new Map<string, string[]>()
    for (const run of page) byTenant.set(run.tenant, [...(byTenant.get(run.tenant) ?? []), run.id])
    for (const [tenant, ids] of byTenant) {
      for (let i = 0; i < ids.length; i += runBatch) {
        if (outOfTime()) return { ...report, complete: false }
        const chunk = ids.slice(i, i + runBatch)
        const deleted = await withTenant(database, tenant, (tx) =>
          deleteExpiredRuns(tx, { runIds: chunk, now, actor: o.actor }),
        )
        report.runsDeleted += deleted.runIds.length
        report.runsSkipped += chunk.length - deleted.runIds.length
        report.runCheckpointsDeleted += deleted.checkpoints
        report.eventsDeleted += deleted.events
        report.deliveriesDeleted += deleted.deliveries
        report.approvalsDeleted += deleted.approvals
      }
    }
    if (page.length < PAGE) break
    const last = page.at(-1)!
    expiredAfter = { at: last.expiresAt, id: last.id }
  }
  return report
}
