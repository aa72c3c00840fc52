import {
  appendRunEvent,
  claimRun,
  getRunForUpdate,
  readPendingResume,
  withTenant,
  type Database,
  type ResumeJob,
  type RunJob,
  type RunRow,
  type RunStatus,
} from '@weave/db'
import type { State } from '@weave/kernel'

/** A job's request to execute a run: a start or a takeover (`run`), or a resume. */
export type Execution = { jobId: string } & (
  ({ kind: 'run' } & RunJob) | ({ kind: 'resume' } & ResumeJob)
)

/** A claimed run and what its execution starts from. */
export interface ClaimedRun {
  run: RunRow
  /** The claim's fencing token. */
  leaseToken: string
  /** The input a resume merges (a client's pending resume), or {} for none. */
  input: State
  /** The root checkpoint the input is meant for. */
  atSeq: number
  /** The settled approval the resume names, for the approval step to complete with. */
  approvalId: string | null
}

/** Why a job did not claim its run. */
export type ClaimRefusal = { skipped: RunStatus | 'missing' | 'moved-on' }

/**
 * Moves the run to `running` under a new claim, in one transaction with what the job needs from
 * Postgres: the pending resume request of a client (its input never travels in a job), and the
 * checkpoint the job is meant for. A resume whose checkpoint the run has left (a timer or a
 * decision that arrived late) is skipped, as is a run that cannot run.
 */
export async function claimExecution(
  database: Database,
  job: Execution,
): Promise<ClaimedRun | ClaimRefusal> {
  return withTenant(database, job.tenant, async (tx) => {
    const before = await getRunForUpdate(tx, job.runId)
    if (!before) return { skipped: 'missing' as const }
    if (before.cancelRequested && before.status !== 'running') return { skipped: before.status }
    if (job.kind === 'resume' && job.atSeq !== before.checkpointSeq) {
      return { skipped: 'moved-on' as const }
    }
    const pending = readPendingResume(before.pendingResume)
    const usable = pending && pending.atSeq === before.checkpointSeq ? pending : null
    if (job.kind === 'resume' && (job.reason === 'input' || job.reason === 'retry')) {
      if (usable?.reason !== job.reason) return { skipped: 'moved-on' as const }
    }
    const run = await claimRun(tx, job.runId, claimableFrom(job), job.jobId)
    if (!run?.leaseToken) return { skipped: before.status }
    if (before.status === 'queued') await appendRunEvent(tx, run.id, 'run.started', {})
    else if (before.status !== 'running') {
      await appendRunEvent(tx, run.id, 'run.resumed', {
        reason: job.kind === 'resume' ? job.reason : 'run',
      })
    }
    return {
      run,
      leaseToken: run.leaseToken,
      input: usable?.input ?? {},
      atSeq: before.checkpointSeq,
      approvalId: job.kind === 'resume' ? (job.approvalId ?? null) : null,
    }
  })
}

/** Which statuses each kind of execution may take a run from (besides its own job's claim). */
function claimableFrom(job: Execution): RunStatus[] {
  if (job.kind === 'run') return job.takeover === undefined ? ['queued'] : []
  return job.reason === 'retry' ? ['failed'] : ['waiting']
}
