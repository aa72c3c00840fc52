import type { Json } from '@weave/kernel'
import type { TenantTx } from './client.js'
import { ThreadBusyError } from './errors.js'
import { appendRunEvent } from './run-events.js'
import { createRun, type RunRow } from './runs.js'
import { appendTenantEvent } from './tenant-events.js'
import type { MultitaskStrategy } from './schema/threads.js'
import {
  ACTIVE_RUN_STATUSES,
  latestThreadRun,
  lockActiveThreadRuns,
  supersedeThreadRuns,
  takeThreadRunSeq,
  type ThreadRow,
} from './threads.js'

/** What `startThreadRun` needs besides the locked thread. */
export interface StartThreadRunInput {
  graphVersion: number
  /** Merged into the thread's state (the graph's merge policies) when the run starts. */
  input: Json
  createdBy: string
  /** The thread's own strategy when absent. */
  strategy?: MultitaskStrategy | undefined
  scheduleId?: string | null
}

/** A started thread run and what starting it did to the thread's other runs. */
export interface StartedThreadRun {
  run: RunRow
  /** True when the run waits for the thread's active run to end before it starts. */
  held: boolean
  /** The runs this start cancelled (at once, or at their next step boundary). */
  superseded: RunRow[]
}

/**
 * Starts a run of a thread under its multitask strategy. Call with the thread locked
 * (`lockThread`): the thread's active runs are locked here too, so concurrent starts decide one
 * after another and a run a worker is ending is read as ended (threads.int.test.ts).
 * - no active run: the run starts from the newest run's latest state;
 * - `reject`: refused with the active run;
 * - `enqueue`: held until the runs before it ended, then starts from the last one's state;
 * - `interrupt`: the active runs are cancelled (a running one at its next step boundary, keeping
 *   its checkpoints) and the run starts from the active run's latest state once it stopped;
 * - `rollback`: as `interrupt`, but it starts from the state the active run started from.
 * @throws ThreadBusyError under `reject` while a run is active.
 */
export async function startThreadRun(
  tx: TenantTx,
  thread: ThreadRow,
  input: StartThreadRunInput,
): Promise<StartedThreadRun> {
  const strategy = input.strategy ?? thread.multitaskStrategy
  const active = await lockActiveThreadRuns(tx, thread.id)
  let baseRunId: string | null
  let superseded: RunRow[] = []
  const head = active.find((r) => !r.held) ?? active[0]
  if (!head) {
    baseRunId = (await latestThreadRun(tx, thread.id))?.id ?? null
  } else {
    if (strategy === 'reject') throw new ThreadBusyError(thread.key, head.id)
    if (strategy === 'enqueue') {
      baseRunId = (active[active.length - 1] as RunRow).id
    } else {
      baseRunId = strategy === 'interrupt' ? head.id : head.baseRunId
      superseded = await supersedeThreadRuns(tx, active)
      for (const run of superseded) {
        if (run.status === 'cancelled') {
          await appendRunEvent(tx, run.id, 'run.cancelled', { by: input.createdBy })
        }
      }
    }
  }
  const stillActive = (strategy === 'enqueue' ? active : superseded).some((r) =>
    (ACTIVE_RUN_STATUSES as readonly string[]).includes(r.status),
  )
  const seq = await takeThreadRunSeq(tx, thread.id)
  const { run } = await createRun(tx, {
    graphName: thread.graphName,
    graphVersion: input.graphVersion,
    input: input.input,
    createdBy: input.createdBy,
    thread: { id: thread.id, seq, baseRunId, held: stillActive },
    scheduleId: input.scheduleId ?? null,
  })
  await appendRunEvent(tx, run.id, 'run.queued', {
    graph: thread.graphName,
    version: input.graphVersion,
    thread: thread.key,
    held: stillActive,
    ...(input.scheduleId ? { schedule: input.scheduleId } : {}),
  })
  await appendThreadRunEvents(tx, thread, input, { run, held: stillActive, superseded }, strategy)
  return { run, held: stillActive, superseded }
}

/** The thread's own events of a start: the run queued and, when it superseded runs, how. */
async function appendThreadRunEvents(
  tx: TenantTx,
  thread: ThreadRow,
  input: StartThreadRunInput,
  started: StartedThreadRun,
  strategy: MultitaskStrategy,
): Promise<void> {
  const actor = input.createdBy
  await appendTenantEvent(tx, {
    type: 'thread.run.queued',
    subject: thread.key,
    actor,
    data: {
      thread: thread.key,
      runId: started.run.id,
      strategy,
      held: started.held,
      ...(input.scheduleId ? { schedule: input.scheduleId } : {}),
    },
  })
  if (started.superseded.length === 0) return
  await appendTenantEvent(tx, {
    type: strategy === 'rollback' ? 'thread.run.rolled_back' : 'thread.run.interrupted',
    subject: thread.key,
    actor,
    data: {
      thread: thread.key,
      runId: started.run.id,
      superseded: started.superseded.map((r) => r.id),
    },
  })
}
