import {
  loadCheckpointRow,
  saveStepCheckpoint,
  SYSTEM_ACTOR,
  type AuditInput,
  type Database,
} from '@weave/db'
import type { AgentEvent } from '@weave/spec'
import type { Store } from '@weave/kernel'
import type { PgStore } from '@weave/pgstore'
import { requestStop, stepKey, stepPath, type Flight } from '../inflight.js'

/** A step's checkpoint is larger than the server allows (`WEAVE_MAX_STATE_BYTES`). */
export class StateTooLargeError extends Error {
  override name = 'StateTooLargeError'
  readonly code = 'state-too-large'
  constructor(
    readonly step: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`step "${step}": its state is ${bytes} bytes, more than the ${maxBytes} allowed`)
  }
}

/** What an execution's store writes with. */
export interface ExecutionStoreDeps {
  database: Pick<Database, 'db' | 'pool'>
  /** The tenant's checkpoint store: reads of history, pruning and listing go through it. */
  base: PgStore
  flight: Flight
  /** The largest checkpoint written, in bytes of its JSON text. */
  maxStateBytes: number
  /** The root graph's steps it routes nowhere after (terminal-steps.ts). */
  terminalSteps: ReadonlySet<string>
}

/**
 * The kernel's Store for one execution of a run. Every checkpoint write is one statement
 * (weave_save_step) that also checks the execution's claim, moves the run's checkpoint seq
 * forward, marks the approval the step used, and appends the step's `step.completed` event, so
 * a crash can neither duplicate the event nor let a fenced-out executor write. The `step_done`
 * checkpoint of a root step the graph routes nowhere after also completes the run, so a run's
 * last write is its end. What it needs to know of the step (its seq, whether its after-hooks
 * ran) comes from the step hooks (step-hooks.ts); only a terminal step's checkpoint is read, for
 * its status.
 */
export class ExecutionStore implements Store {
  constructor(private readonly deps: ExecutionStoreDeps) {}

  async get(ns: string, key: string): Promise<string | undefined> {
    const { database, base, flight } = this.deps
    const row = await loadCheckpointRow(database, flight.tenant, base.namespaceColumn(ns), key)
    if (row?.attemptSeq != null) flight.attemptSeqs.set(key, row.attemptSeq)
    return row?.value
  }

  async put(ns: string, key: string, value: string): Promise<void> {
    await this.putMany(ns, [[key, value]])
  }

  /** The kernel writes a run's latest key first, then its history entry (docs/kernel.md). */
  async putMany(ns: string, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    const [first] = entries
    if (!first) return
    const [latestKey, value] = first
    const { database, base, flight, maxStateBytes } = this.deps
    const current = flight.currentSteps.get(latestKey)
    if (!current) throw new Error(`no step of run ${latestKey} is executing`)
    const path = stepPath(latestKey, current.step)
    const bytes = Buffer.byteLength(value, 'utf8')
    if (bytes > maxStateBytes) throw new StateTooLargeError(path, bytes, maxStateBytes)
    const finished = flight.finishedSteps.has(stepKey(latestKey, current.seq))
    const approvalId = finished ? (flight.usedApprovals.get(latestKey) ?? null) : null
    const key = stepKey(latestKey, current.seq)
    // What the step did is on the record with its checkpoint, named by the step's path.
    const events = finished
      ? (flight.stepEvents.get(key) ?? []).map(
          (e) => ({ ...e, data: { ...e.data, step: path } }) as AgentEvent,
        )
      : []
    const isRoot = latestKey === flight.runId
    const completes =
      isRoot && finished && this.deps.terminalSteps.has(current.step) && isStepDone(value)
        ? { lastStep: current.step, addSteps: flight.rootStepsStarted }
        : null
    const { cancelRequested } = await saveStepCheckpoint(database, {
      tenant: flight.tenant,
      runId: flight.runId,
      leaseToken: flight.leaseToken,
      ns: base.namespaceColumn(ns),
      keys: entries.map(([key]) => key),
      value,
      latestKey,
      seq: current.seq,
      isRoot,
      isFailed: !finished,
      approvalId,
      event: finished ? { step: path, seq: current.seq } : null,
      events,
      audits: events.flatMap((e) => toolAudit(flight.runId, e)),
      completes,
    })
    if (completes) flight.completedWithCheckpoint = true
    flight.stepEvents.delete(key)
    flight.confirmedAt = performance.now()
    if (approvalId !== null) flight.usedApprovals.delete(latestKey)
    if (finished) flight.attemptSeqs.delete(latestKey)
    else if (!flight.attemptSeqs.has(latestKey)) flight.attemptSeqs.set(latestKey, current.seq)
    if (cancelRequested) requestStop(flight, 'cancelled')
  }

  delete(ns: string, key: string): Promise<void> {
    return this.deps.base.delete(ns, key)
  }

  list(ns: string, prefix: string): Promise<string[]> {
    return this.deps.base.list(ns, prefix)
  }

  tx<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    return this.deps.base.tx(fn)
  }
}

/** A checkpoint the kernel wrote as `step_done` (docs/kernel.md, Checkpoints), not a yield. */
function isStepDone(value: string): boolean {
  const checkpoint = JSON.parse(value) as { status?: unknown }
  return checkpoint.status === 'step_done'
}

/**
 * The audit event of a tool call an agent made that can change the world (not read-only): it is
 * recorded with the checkpoint that holds the call's result, so each executed call is on the
 * record exactly once, however often a crash made the call be sent.
 */
function toolAudit(runId: string, event: AgentEvent): AuditInput[] {
  if (event.type !== 'tool.completed' || event.data.readOnly) return []
  const { step, callId, tool, argumentsDigest, approvalId, edited } = event.data
  return [
    {
      actor: SYSTEM_ACTOR,
      action: 'agent.tool.executed',
      target: { kind: 'run', id: runId },
      details: { step, callId, tool, argumentsDigest, approvalId, edited },
    },
  ]
}
