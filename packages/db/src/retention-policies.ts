import { eq, sql } from 'drizzle-orm'
import type { Database, TenantTx } from './client.js'
import {
  expiryOf,
  historyToKeep,
  resolveRetention,
  type RetentionPolicy,
} from './retention-policy.js'
import { retentionPolicies } from './schema/retention.js'

/** A tenant's stored retention policy, with who set it and when. */
export interface StoredRetentionPolicy extends RetentionPolicy {
  updatedBy: string
  updatedAt: Date
}

/** The tenant's retention policy; null when it never set one (everything is kept). */
export async function getRetentionPolicy(tx: TenantTx): Promise<StoredRetentionPolicy | null> {
  const [row] = await tx.db
    .select()
    .from(retentionPolicies)
    .where(eq(retentionPolicies.tenantId, tx.tenant))
  if (!row) return null
  return {
    checkpoints: row.checkpoints as RetentionPolicy['checkpoints'],
    runDays: row.runDays,
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt,
  }
}

/**
 * Sets the tenant's retention policy, returning the one it replaced (null: none). It applies to
 * runs that finish from then on; runs retention already visited keep what it decided for them.
 * The caller records the change in the audit log in the same transaction.
 */
export async function putRetentionPolicy(
  tx: TenantTx,
  policy: RetentionPolicy,
  updatedBy: string,
): Promise<{ before: StoredRetentionPolicy | null; after: StoredRetentionPolicy }> {
  const before = await getRetentionPolicy(tx)
  const [row] = await tx.db
    .insert(retentionPolicies)
    .values({
      tenantId: tx.tenant,
      checkpoints: policy.checkpoints,
      runDays: policy.runDays,
      updatedBy,
    })
    .onConflictDoUpdate({
      target: retentionPolicies.tenantId,
      set: {
        checkpoints: policy.checkpoints,
        runDays: policy.runDays,
        updatedBy,
        updatedAt: sql`now()`,
      },
    })
    .returning()
  return {
    before,
    after: {
      checkpoints: row!.checkpoints as RetentionPolicy['checkpoints'],
      runDays: row!.runDays,
      updatedBy: row!.updatedBy,
      updatedAt: row!.updatedAt,
    },
  }
}

/** A finished run retention has not applied its policy to, with that policy resolved. */
export interface RunToRetain {
  tenant: string
  id: string
  /** The checkpoint seq the run had when listed: the policy is applied at that seq only. */
  checkpointSeq: number
  finishedAt: Date
  /** History entries to keep per (child) run: null all, 0 none. */
  keepHistory: number | null
  /** When the run is to be deleted; null: kept. */
  expiresAt: Date | null
}

/**
 * Finished runs of every tenant that retention has not visited since their last checkpoint,
 * oldest finish first, after `after` (a keyset page over runs_retention_pending), each with the
 * policy its graph version and tenant give it.
 */
export async function listRunsToRetain(
  database: Pick<Database, 'db'>,
  options: { after?: { at: Date; id: string } | null; limit?: number },
): Promise<RunToRetain[]> {
  const after = options.after ?? null
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    checkpoint_seq: number
    finished_at: string | Date
    graph_retention: unknown
    tenant_checkpoints: unknown
    tenant_run_days: number | null
  }>(
    sql`select * from weave_runs_to_retain(${after?.at.toISOString() ?? null}::timestamptz,
      ${after?.id ?? null}::uuid, ${options.limit ?? 100})`,
  )
  return result.rows.map((r) => {
    const tenant =
      r.tenant_checkpoints === null
        ? null
        : { checkpoints: r.tenant_checkpoints, runDays: r.tenant_run_days }
    const policy = resolveRetention(r.graph_retention, tenant)
    const finishedAt = new Date(r.finished_at)
    return {
      tenant: r.tenant_id,
      id: r.id,
      checkpointSeq: r.checkpoint_seq,
      finishedAt,
      keepHistory: historyToKeep(policy.checkpoints),
      expiresAt: expiryOf(finishedAt, policy.runDays),
    }
  })
}

/** Runs of every tenant whose retention time has come, soonest expiry first. */
export async function listExpiredRuns(
  database: Pick<Database, 'db'>,
  options: { now: Date; after?: { at: Date; id: string } | null; limit?: number },
): Promise<Array<{ tenant: string; id: string; expiresAt: Date }>> {
  const after = options.after ?? null
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    expires_at: string | Date
  }>(
    sql`select * from weave_expired_runs(${options.now.toISOString()}::timestamptz,
      ${after?.at.toISOString() ?? null}::timestamptz, ${after?.id ?? null}::uuid,
      ${options.limit ?? 100})`,
  )
  return result.rows.map((r) => ({
    tenant: r.tenant_id,
    id: r.id,
    expiresAt: new Date(r.expires_at),
  }))
}
