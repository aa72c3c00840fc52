import {
  appendAudit,
  appendRunEvent,
  cancelRunApprovals,
  getRun,
  openApproval,
  transitionRun,
  withTenant,
  type Database,
  type RunRow,
} from '@weave/db'
import type { Json, RunResult } from '@weave/kernel'
import type { JobQueues } from '@weave/queue'
import type { Suspension } from '@weave/spec'
import { issueApprovalLinks, type ApprovalLinkOptions } from './approval-links.js'
import { stepPath } from './inflight.js'

/** The actor of audit events a worker writes on its own. */
export const WORKER_ACTOR = 'system:worker'

/** What applying a stop decided, for the processor's log line. */
export type StopOutcome = 'completed' | 'failed' | 'cancelled' | 'waiting' | 'interrupted'

export interface ApplyStopDeps {
  database: Database
  queues: JobQueues
  now?: () => Date
  /** Approval links in `approval.requested` events; none when absent. */
  approvalLinks?: ApprovalLinkOptions
}

/**
 * Records how the kernel stopped: the run's status (a conditional update from `running`, so a late
 * or duplicate job cannot move it backwards), its events, an opened approval, and the timers to
 * schedule. `rootSeq` is the seq of the run's latest checkpoint, the point a resume continues from.
 */
export async function applyStop(
  deps: ApplyStopDeps,
  run: RunRow,
  result: RunResult,
  suspension: Suspension | undefined,
  rootSeq: number,
): Promise<StopOutcome> {
  const tenant = run.tenantId
  const patch = { stopReason: result.stopReason, lastStep: result.lastStep, addSteps: result.steps }
  const now = deps.now ?? (() => new Date())

  if (result.stopReason === 'completed') {
    return withTenant(deps.database, tenant, async (tx): Promise<StopOutcome> => {
      const moved = await transitionRun(tx, run.id, ['running'], 'completed', patch)
      if (moved)
        await appendRunEvent(tx, run.id, 'run.completed', {
          steps: moved.steps,
          lastStep: result.lastStep,
        })
      return 'completed'
    })
  }

  if (result.stopReason === 'yielded') {
    const timers: Array<() => Promise<void>> = []
    const outcome = await withTenant(deps.database, tenant, async (tx): Promise<StopOutcome> => {
      const current = await getRun(tx, run.id)
      if (current?.cancelRequested) return cancel(tx, run.id, patch)
      const waitingOn = await openWait(tx, run, suspension, result, rootSeq, now(), timers, deps)
      const moved = await transitionRun(tx, run.id, ['running'], 'waiting', { ...patch, waitingOn })
      if (moved) await appendRunEvent(tx, run.id, 'run.waiting', waitingOn)
      return 'waiting'
    })
    for (const schedule of timers) await schedule()
    return outcome
  }

  if (result.stopReason === 'cancelled') {
    return withTenant(deps.database, tenant, async (tx): Promise<StopOutcome> => {
      const current = await getRun(tx, run.id)
      // Not asked for by a user: this worker is shutting down. The run stays `running` and its
      // job is retried elsewhere from the last checkpoint.
      if (!current?.cancelRequested) return 'interrupted'
      return cancel(tx, run.id, patch)
    })
  }

  const error = {
    name: result.error?.name ?? 'Error',
    message: result.error?.message ?? result.stopReason,
    step: result.lastStep,
    stopReason: result.stopReason,
  }
  return withTenant(deps.database, tenant, async (tx): Promise<StopOutcome> => {
    const moved = await transitionRun(tx, run.id, ['running'], 'failed', { ...patch, error })
    if (moved) {
      await appendRunEvent(tx, run.id, 'run.failed', error)
      await appendAudit(tx, {
        actor: WORKER_ACTOR,
        action: 'run.failed',
        target: { kind: 'run', id: run.id },
        details: error,
      })
    }
    return 'failed'
  })
}

type Tx = Parameters<Parameters<typeof withTenant>[2]>[0]

async function cancel(tx: Tx, runId: string, patch: object): Promise<StopOutcome> {
  const moved = await transitionRun(tx, runId, ['running'], 'cancelled', patch)
  if (moved) {
    await cancelRunApprovals(tx, runId)
    await appendRunEvent(tx, runId, 'run.cancelled', {})
  }
  return 'cancelled'
}

/** Opens what a yielded run waits for and returns the run's `waitingOn`. */
async function openWait(
  tx: Tx,
  run: RunRow,
  s: Suspension | undefined,
  result: RunResult,
  rootSeq: number,
  now: Date,
  timers: Array<() => Promise<void>>,
  deps: ApplyStopDeps,
): Promise<{ kind: string; step: string; [k: string]: Json }> {
  const { queues } = deps
  const tenant = run.tenantId
  if (!s) return { kind: 'input', step: result.lastStep, atSeq: rootSeq }
  const step = stepPath(s.runId, s.step)

  if (s.kind === 'approval') {
    const expiresAt = s.timeoutMs === null ? null : new Date(now.getTime() + s.timeoutMs)
    const { approval, created } = await openApproval(tx, {
      runId: run.id,
      step,
      seq: s.seq,
      title: s.title,
      details: s.details,
      ...(s.approvers ? { approvers: s.approvers } : {}),
      required: s.required,
      separationOfDuties: s.separationOfDuties,
      saveAs: s.saveAs,
      onTimeout: s.onTimeout,
      expiresAt,
    })
    if (created) {
      const links = deps.approvalLinks
        ? await issueApprovalLinks(tx, approval, deps.approvalLinks, now)
        : null
      await appendRunEvent(tx, run.id, 'approval.requested', {
        approvalId: approval.id,
        step,
        title: approval.title,
        details: approval.details as Json,
        materialHash: approval.materialHash,
        expiresAt: approval.expiresAt ? new Date(approval.expiresAt).toISOString() : null,
        ...links,
      })
    }
    if (approval.status === 'pending' && approval.expiresAt) {
      const delay = new Date(approval.expiresAt).getTime() - now.getTime()
      timers.push(() => queues.scheduleApprovalTimeout({ approvalId: approval.id, tenant }, delay))
    }
    return { kind: 'approval', step, approvalId: approval.id, atSeq: rootSeq }
  }

  if (s.kind === 'wait') {
    const delay = new Date(s.until).getTime() - now.getTime()
    timers.push(() => queues.scheduleWait({ runId: run.id, tenant, step, seq: rootSeq }, delay))
    return { kind: 'wait', step, until: s.until, atSeq: rootSeq }
  }

  return {
    kind: 'input',
    step,
    atSeq: rootSeq,
    prompt: s.prompt,
    schema: s.schema as Json,
    saveAs: s.saveAs,
  }
}
