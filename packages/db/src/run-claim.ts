import { getTableColumns } from 'drizzle-orm'
import type { Database } from './client.js'
import type { ResumeJob } from './jobs.js'
import type { RunRow } from './runs.js'
import { runs, type RunStatus } from './schema/runs.js'
import { withTraceParentSetting, withTraceParentValue } from './trace-parent.js'
import { isUuid } from './uuid.js'

/** What a job asks of its run: take it from one of `from`, for the checkpoint a resume is for. */
export interface RunClaimRequest {
  tenant: string
  runId: string
  /** The job's id: the claim's `lease_job`. */
  jobId: string
  /** The statuses the job may take the run from (besides running under its own claim). */
  from: readonly RunStatus[]
  /** A resume's checkpoint: the run must still be at it. */
  resumeAtSeq?: number
  /** A resume's reason: an input or retry resume needs the client's request for that checkpoint. */
  resumeReason?: ResumeJob['reason']
  /** The reason a `run.resumed` event gives (a claim of a waiting or failed run). */
  eventReason: string
}

/** A claimed run (its new fencing token in `leaseToken`), or why the job did not claim it. */
export type RunClaim = { run: RunRow } | { skipped: RunStatus | 'missing' | 'moved-on' }

const COLUMNS = Object.entries(getTableColumns(runs))

/**
 * A run row as `to_jsonb` gives it, read as drizzle reads the table: timestamps become Dates,
 * jsonb columns stay the values they already are.
 */
export function runFromJson(json: Record<string, unknown>): RunRow {
  return Object.fromEntries(
    COLUMNS.map(([key, column]) => {
      const value = json[column.name]
      if (value === null || value === undefined) return [key, null]
      if (column.dataType === 'json') return [key, value]
      return [key, column.mapFromDriverValue(value)]
    }),
  ) as RunRow
}

/**
 * Moves the run to `running` under a new claim, in one statement (weave_claim_run): under the
 * run's row lock, it refuses a run that is missing, cancelled, past the resume's checkpoint or
 * without the request an input or retry resume needs, takes the run from `from` (not while
 * held) or again under the same job, and appends `run.started` (from queued) or `run.resumed`
 * (from waiting or failed). Another job can never take a running run, and every claim gets a
 * new fencing token.
 */
export async function claimRunForJob(
  database: Pick<Database, 'pool'>,
  r: RunClaimRequest,
): Promise<RunClaim> {
  if (!isUuid(r.runId)) return { skipped: 'missing' }
  const { rows } = await database.pool.query<{ claim: Record<string, unknown> }>({
    name: 'weave_claim_run',
    text: withTraceParentSetting('SELECT weave_claim_run($1, $2, $3, $4, $5, $6, $7) AS claim', 8),
    values: withTraceParentValue([
      r.tenant,
      r.runId,
      r.jobId,
      [...r.from],
      r.resumeAtSeq ?? null,
      r.resumeReason ?? null,
      r.eventReason,
    ]),
  })
  const claim = rows[0]!.claim
  if (typeof claim.skipped === 'string') {
    return { skipped: claim.skipped as RunStatus | 'missing' | 'moved-on' }
  }
  return { run: runFromJson(claim.run as Record<string, unknown>) }
}

/** Completes a run executed under `leaseToken`. */
export interface RunCompletion {
  tenant: string
  runId: string
  leaseToken: string
  stopReason: string
  lastStep: string | null
  /** Steps this execution ran, added to the run's count. */
  addSteps: number
}

/**
 * Moves a run from `running` under the claim `leaseToken` to `completed` and appends its
 * `run.completed` event, in one statement (weave_complete_run). False when the run is not
 * running under that claim: a late or fenced-out executor changes nothing.
 */
export async function completeRun(
  database: Pick<Database, 'pool'>,
  c: RunCompletion,
): Promise<boolean> {
  if (!isUuid(c.runId)) return false
  const { rows } = await database.pool.query<{ completed: boolean }>({
    name: 'weave_complete_run',
    text: withTraceParentSetting(
      'SELECT weave_complete_run($1, $2, $3, $4, $5, $6) AS completed',
      7,
    ),
    values: withTraceParentValue([
      c.tenant,
      c.runId,
      c.leaseToken,
      c.stopReason,
      c.lastStep,
      c.addSteps,
    ]),
  })
  return rows[0]!.completed
}
