import {
  claimRunForJob,
  readPendingResume,
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
 * Moves the run to `running` under a new claim, in one statement with what the job needs from
 * Postgres (claimRunForJob): the pending resume request of a client (its input never travels in
 * a job), and the checkpoint the job is meant for. A resume whose checkpoint the run has left (a
 * timer or a decision that arrived late) is skipped, as is a run that cannot run.
 */
export async function claimExecution(
  database: Database,
  job: Execution,
): Promise<ClaimedRun | ClaimRefusal> {
  const claim = await claimRunForJob(database, {
    tenant: job.tenant,
    runId: job.runId,
    jobId: job.jobId,
    from: claimableFrom(job),
    ...(job.kind === 'resume' ? { resumeAtSeq: job.atSeq, resumeReason: job.reason } : {}),
    eventReason: job.kind === 'resume' ? job.reason : 'run',
  })
  if ('skipped' in claim) return claim
  const { run } = claim
  if (!run.leaseToken) return { skipped: run.status }
  // The claim leaves the run's checkpoint seq and pending resume as they were.
  const pending = readPendingResume(run.pendingResume)
  const usable = pending && pending.atSeq === run.checkpointSeq ? pending : null
  return {
    run,
    leaseToken: run.leaseToken,
    input: usable?.input ?? {},
    atSeq: run.checkpointSeq,
    approvalId: job.kind === 'resume' ? (job.approvalId ?? null) : null,
  }
}

/** Which statuses each kind of execution may take a run from (besides its own job's claim). */
function claimableFrom(job: Execution): RunStatus[] {
  if (job.kind === 'run') return job.takeover === undefined ? ['queued'] : []
  return job.reason === 'retry' ? ['failed'] : ['waiting']
}
