import type { ApprovalLifecycle, Database, JobSink, ScheduleTimers } from '@weave/db'
import type { Processor } from 'bullmq'
import type { Logger } from 'pino'
import type { WorkerMetrics } from '../metrics.js'
import { fireScheduleTick } from '../schedules.js'
import { jobProcessor } from './job-processor.js'

/** What the timers need. */
export interface TimersDeps {
  database: Database
  jobs: JobSink
  queues: ScheduleTimers
  lifecycle: ApprovalLifecycle
  log: Logger
  metrics?: WorkerMetrics
}

/**
 * Fires durable timers: a `wait` step's end resumes its run; an approval's timeout expires it; a
 * schedule's tick starts its run.
 */
export function timersProcessor(deps: TimersDeps): Processor {
  return jobProcessor<object>(deps.metrics, {
    waitElapsed: async ({ runId, tenant, seq }, job) => {
      await deps.jobs.enqueue('resume', { runId, tenant, reason: 'timer', atSeq: seq })
      deps.log.info({ jobId: job.id, runId, tenant }, 'wait elapsed; run resumed')
      return { resumed: runId }
    },
    approvalTimeout: async ({ tenant, approvalId }, job) => {
      const { expired, runId } = await deps.lifecycle.expire(tenant, approvalId)
      deps.log.info(
        { jobId: job.id, runId: runId ?? null, tenant, approvalId, expired },
        'approval timeout fired',
      )
      return { expired }
    },
    fireSchedule: async (payload, job) => ({ firing: await fireScheduleTick(deps, payload, job) }),
  })
}
