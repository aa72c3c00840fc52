import type pg from 'pg'
import { isDatabaseUnavailable, pgCode } from './pg-errors.js'
import {
  sendStepWrite,
  sendStepWrites,
  type SavedStepWrite,
  type StepWriteValues,
} from './step-write-statements.js'

/**
 * How many step-write statements of one pool may be in flight before further writes wait to
 * go together in the next one. One write alone goes at once, as its own statement. One: since
 * the writes of a statement are written as sets, one statement of many writes costs less per
 * write than two of fewer, and the wait is one statement's (bench/e2e/README.md,
 * twenty-second round).
 */
const MAX_IN_FLIGHT = 1

/** The most writes one statement carries. */
const MAX_PER_STATEMENT = 32

interface QueuedWrite {
  write: StepWriteValues
  resolve: (saved: SavedStepWrite) => void
  reject: (err: unknown) => void
}

/**
 * The step writes of one pool. A write goes at once while fewer than MAX_IN_FLIGHT statements of
 * step writes are in flight; otherwise it waits for one of them to end and goes with every write
 * that waited meanwhile, in one statement (weave_save_steps). A worker executing many runs at
 * once then pays one round trip, one commit and one WAL flush for several steps, and one
 * executing a single run sends exactly what it sent before. A write's promise settles once it is
 * committed or known not to be: when a shared statement fails, nothing of it was written, and
 * each of its writes is sent again on its own, so a refusal (a lost claim, a checkpoint behind)
 * is its write's alone.
 */
export class StepWriteBatch {
  private inFlight = 0
  private queue: QueuedWrite[] = []

  constructor(private readonly pool: pg.Pool) {}

  /** Writes a step; resolves once it is committed (see sendStepWrite for its errors). */
  save(write: StepWriteValues): Promise<SavedStepWrite> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject })
      if (this.inFlight < MAX_IN_FLIGHT) this.sendQueued()
    })
  }

  private sendQueued(): void {
    const writes = this.queue.splice(0, MAX_PER_STATEMENT)
    if (writes.length === 0) return
    this.inFlight++
    void this.send(writes).finally(() => {
      this.inFlight--
      this.sendQueued()
    })
  }

  // Never rejects: every write's own promise receives its outcome.
  private async send(writes: QueuedWrite[]): Promise<void> {
    if (writes.length === 1) return settle(writes[0]!, this.pool)
    // One order of runs for every statement, so two of them never wait for each other's rows.
    writes.sort((a, b) =>
      a.write.runId < b.write.runId ? -1 : a.write.runId > b.write.runId ? 1 : 0,
    )
    let cancels: boolean[]
    try {
      cancels = await sendStepWrites(
        this.pool,
        writes.map((w) => w.write),
      )
    } catch (err) {
      // Without an answer from Postgres, whether the statement committed is unknown: each write
      // fails as it would have alone. An error Postgres answered rolled the statement back.
      if (pgCode(err) === undefined || isDatabaseUnavailable(err)) {
        for (const w of writes) w.reject(err)
        return
      }
      await Promise.all(writes.map((w) => settle(w, this.pool)))
      return
    }
    writes.forEach((w, i) => w.resolve({ cancelRequested: cancels[i] === true }))
  }
}

function settle(queued: QueuedWrite, pool: pg.Pool): Promise<void> {
  return sendStepWrite(pool, queued.write).then(queued.resolve, queued.reject)
}

const batches = new WeakMap<pg.Pool, StepWriteBatch>()

/** The step writes of `pool`, shared by every caller writing steps through it. */
export function stepWriteBatchOf(pool: pg.Pool): StepWriteBatch {
  let batch = batches.get(pool)
  if (!batch) {
    batch = new StepWriteBatch(pool)
    batches.set(pool, batch)
  }
  return batch
}
