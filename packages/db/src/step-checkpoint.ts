import { sql } from 'drizzle-orm'
import { appendAuditAtCommit } from './audit.js'
import { withTenant, type Database } from './client.js'
import { stepWriteBatchOf } from './step-write-batch.js'
import {
  fitsStepWrites,
  savedStep,
  saveStepSql,
  sendStepWrite,
  stepWriteValues,
  type SavedStepWrite,
  type StepCheckpoint,
} from './step-write-statements.js'

export type { SavedStepWrite, StepCheckpoint } from './step-write-statements.js'

/**
 * Writes a step's checkpoint in one statement (weave_save_step): the fence (the run is running
 * under `leaseToken`), the run's checkpoint seq moving forward only, the used approval, the
 * checkpoint rows and the step's event with its webhook deliveries commit together or not at all
 * (the fence: lease.int.test.ts). The write also renews the run's lease, clears a resume request
 * it applied, completes the run when `completes` says the step ends it (migration 0035), and
 * tells whether a client has asked to cancel the run meanwhile. Writes of other runs due at the
 * same time may share its statement (StepWriteBatch).
 * @throws StepRefusedError when the fence refuses; the driver's error when Postgres is away
 */
export async function saveStepCheckpoint(
  database: Pick<Database, 'db' | 'pool'>,
  c: StepCheckpoint,
): Promise<SavedStepWrite> {
  const audits = c.audits ?? []
  if (audits.length === 0) {
    const write = stepWriteValues(c)
    return fitsStepWrites(c)
      ? stepWriteBatchOf(database.pool).save(write)
      : sendStepWrite(database.pool, write)
  }
  // The audit events commit with the checkpoint or not at all, chained after the commit.
  return withTenant(database, c.tenant, async (tx) => {
    const saved = await savedStep(c.runId, () =>
      tx.db.execute<{ cancel_requested: boolean | null }>(saveStepSql(c)),
    )
    for (const audit of audits) await appendAuditAtCommit(tx, audit)
    return saved
  })
}

/** A stored checkpoint row of a tenant, with the first-attempt seq of a retried step. */
export interface CheckpointRow {
  value: string
  /** Set while the row is a `failed` checkpoint: the seq of the step's first failed attempt. */
  attemptSeq: number | null
}

/** The checkpoint row under (ns, key) of a tenant, or undefined (weave_load_checkpoint). */
export async function loadCheckpointRow(
  database: Pick<Database, 'db'>,
  tenant: string,
  ns: string,
  key: string,
): Promise<CheckpointRow | undefined> {
  const result = await database.db.execute<{ value: string; attempt_seq: number | null }>(
    sql`select * from weave_load_checkpoint(${tenant}, ${ns}, ${key})`,
  )
  const row = result.rows[0]
  return row ? { value: row.value, attemptSeq: row.attempt_seq } : undefined
}
