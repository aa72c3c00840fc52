import {
  appendAuditAtCommit,
  appendRunEvent,
  completeRun,
  getRunForUpdate,
  SYSTEM_ACTOR,
  transitionRun,
  withTenant,
  type ApprovalLifecycle,
  type ApprovalRow,
  type Database,
  type JobSink,
  type RunRow,
  type TenantTx,
  type WaitingOn,
} from '@weave/db'
import type { RunResult } from '@weave/kernel'
import { readYieldReason, type YieldReason } from '@weave/spec'
import { stepPath, type Flight } from '../inflight.js'
import { StateTooLargeError } from './execution-store.js'
import { findCause, StopRequestedError } from './step-hooks.js'

/** What applying a stop decided, for the processor's log line. */
export type StopOutcome = 'completed' | 'failed' | 'cancelled' | 'waiting' | 'interrupted'

/** What applying a stop needs. */
export interface ApplyStopDeps {
  database: Database
  jobs: JobSink
  lifecycle: ApprovalLifecycle
  log?: { warn(fields: object, message: string): void }
}

/**
 * Records how the kernel stopped: the run's status (a compare-and-set from `running` under this
 * execution's claim, so a late or fenced-out executor cannot move it), its events, the approval
 * a yield opened, and the timers to schedule once that committed.
 */
export async function applyStop(
  deps: ApplyStopDeps,
  run: RunRow,
  flight: Flight,
  result: RunResult,
): Promise<StopOutcome> {
  const guard = { leaseToken: flight.leaseToken }
  const patch = { stopReason: result.stopReason, lastStep: result.lastStep, addSteps: result.steps }
  const inTenant = <T>(fn: (tx: TenantTx) => Promise<T>) =>
    withTenant(deps.database, run.tenantId, fn)

  const stop = findCause(
    result.error,
    (e): e is StopRequestedError => e instanceof StopRequestedError,
  )
  // The worker is shutting down (or its bounded grace ran out): the run stays `running` under
  // this job, which goes back to the queue and continues from the last checkpoint.
  if (stop?.reason === 'shutdown' || (result.stopReason === 'cancelled' && !stop)) {
    return 'interrupted'
  }
  if (stop?.reason === 'cancelled') {
    // The kernel counts a step its before-hook vetoed as started; it never ran.
    const ran = result.stopReason === 'hook_abort' ? Math.max(0, result.steps - 1) : result.steps
    return inTenant((tx) => cancel(deps, tx, run.id, { ...patch, addSteps: ran }, guard))
  }

  if (result.stopReason === 'completed') {
    // The last step's checkpoint write ended the run already (execution-store.ts).
    if (flight.completedWithCheckpoint) return 'completed'
    // One statement: the compare-and-set under this claim and its run.completed event.
    await completeRun(deps.database, {
      tenant: run.tenantId,
      runId: run.id,
      leaseToken: flight.leaseToken,
      stopReason: result.stopReason,
      lastStep: result.lastStep,
      addSteps: result.steps,
    })
    return 'completed'
  }

  if (result.stopReason === 'yielded') {
    const reason = readYieldReason(result.yield?.reason)
    let opened: ApprovalRow[] = []
    const outcome = await inTenant(async (tx): Promise<StopOutcome> => {
      const current = await getRunForUpdate(tx, run.id)
      if (current?.cancelRequested) return cancel(deps, tx, run.id, patch, guard)
      const { waitingOn, approvals } = await openWait(deps, tx, run.id, result, reason)
      const moved = await transitionRun(
        tx,
        run.id,
        ['running'],
        'waiting',
        { ...patch, waitingOn },
        guard,
      )
      if (!moved) return 'waiting'
      await appendRunEvent(tx, run.id, 'run.waiting', waitingOn)
      opened = approvals
      return 'waiting'
    })
    await scheduleWake(deps, run, result, reason, opened)
    return outcome
  }

  const tooLarge = findCause(
    result.error,
    (e): e is StateTooLargeError => e instanceof StateTooLargeError,
  )
  const cause = tooLarge ?? result.error
  const error = {
    name: cause?.name ?? 'Error',
    message: cause?.message ?? result.stopReason,
    step: tooLarge?.step ?? result.lastStep,
    stopReason: result.stopReason,
  }
  return inTenant(async (tx): Promise<StopOutcome> => {
    const moved = await transitionRun(tx, run.id, ['running'], 'failed', { ...patch, error }, guard)
    if (moved) {
      await appendRunEvent(tx, run.id, 'run.failed', error)
      await appendAuditAtCommit(tx, {
        actor: SYSTEM_ACTOR,
        action: 'run.failed',
        target: { kind: 'run', id: run.id },
        details: error,
      })
    }
    return 'failed'
  })
}

async function cancel(
  deps: ApplyStopDeps,
  tx: TenantTx,
  runId: string,
  patch: { stopReason: string; lastStep: string; addSteps: number },
  guard: { leaseToken: string },
): Promise<StopOutcome> {
  // However the kernel stopped (a hook's abort at the step boundary, or a yield that raced the
  // cancel), the run stopped because it was cancelled.
  const cancelled = { ...patch, stopReason: 'cancelled' }
  const moved = await transitionRun(tx, runId, ['running'], 'cancelled', cancelled, guard)
  if (moved) {
    await deps.lifecycle.cancelPending(tx, runId)
    // The client's cancel was audited with its subject when it was asked for.
    await appendRunEvent(tx, runId, 'run.cancelled', { by: null })
  }
  return 'cancelled'
}

/** Opens what a yielded run waits for, in the stop's transaction, and returns its `waitingOn`. */
async function openWait(
  deps: ApplyStopDeps,
  tx: TenantTx,
  runId: string,
  result: RunResult,
  reason: YieldReason | null,
): Promise<{ waitingOn: WaitingOn; approvals: ApprovalRow[] }> {
  const atSeq = result.seq
  if (!reason) {
    // A handler step that yielded without a reason waits for outside input, as an input step.
    const waitingOn: WaitingOn = {
      kind: 'input',
      step: result.lastStep,
      atSeq,
      prompt: null,
      schema: null,
      saveAs: null,
    }
    return { waitingOn, approvals: [] }
  }
  const step = stepPath(reason.runId, reason.step)
  if (reason.kind === 'approval' || reason.kind === 'approvals') {
    const requests = reason.kind === 'approval' ? [reason] : reason.approvals
    const approvals: ApprovalRow[] = []
    for (const request of requests) {
      const { approval } = await deps.lifecycle.open(tx, runId, atSeq, {
        step,
        seq: request.seq,
        ...(request.callId === undefined ? {} : { callId: request.callId }),
        title: request.title,
        details: request.details,
        approvers: request.approvers,
        required: request.required,
        separationOfDuties: request.separationOfDuties,
        timeoutMs: request.timeoutMs,
        onTimeout: request.onTimeout,
        saveAs: request.saveAs,
        inputSchema: request.inputSchema,
      })
      approvals.push(approval)
    }
    const [first] = approvals as [ApprovalRow, ...ApprovalRow[]]
    const waitingOn: WaitingOn = {
      kind: 'approval',
      step,
      approvalId: first.id,
      ...(reason.kind === 'approvals' ? { approvalIds: approvals.map((a) => a.id) } : {}),
      atSeq,
    }
    return { waitingOn, approvals }
  }
  if (reason.kind === 'wait') {
    return { waitingOn: { kind: 'wait', step, atSeq, until: reason.until }, approvals: [] }
  }
  const waitingOn: WaitingOn = {
    kind: 'input',
    step,
    atSeq,
    prompt: reason.prompt,
    schema: reason.schema,
    saveAs: reason.saveAs,
  }
  return { waitingOn, approvals: [] }
}

/**
 * Schedules what wakes a waiting run, after its wait committed: a timer's job, each pending
 * approval's expiry, or, when every approval it waits on was settled already (a step asked again
 * after a crash), its resume. A lost job is found again by the reconciler (`wake_at`, settled
 * approvals, overdue approvals), so an enqueue failure here only delays the run.
 */
async function scheduleWake(
  deps: ApplyStopDeps,
  run: RunRow,
  result: RunResult,
  reason: YieldReason | null,
  approvals: ApprovalRow[],
): Promise<void> {
  const tenant = run.tenantId
  try {
    const pending = approvals.filter((a) => a.status === 'pending')
    for (const approval of pending) await deps.lifecycle.scheduleExpiry(tenant, approval)
    if (approvals.length > 0 && pending.length === 0) {
      await deps.lifecycle.resume(tenant, { ...approvals.at(-1)!, decisions: [] })
    } else if (reason?.kind === 'wait') {
      await deps.jobs.enqueue(
        'waitElapsed',
        { runId: run.id, tenant, step: stepPath(reason.runId, reason.step), seq: result.seq },
        { delayMs: new Date(reason.until).getTime() - Date.now() },
      )
    }
  } catch (err) {
    deps.log?.warn(
      { err, runId: run.id },
      'wake-up not scheduled; the reconciler will wake the run',
    )
  }
}
