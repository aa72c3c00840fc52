import { and, eq, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { rowCheck } from './row-check.js'
import { runs } from './schema/runs.js'
import { isUuid } from './uuid.js'

/**
 * Renews the lease of a running run held by `jobId`: touches `updated_at`, so the reconciler,
 * which only looks at runs unchanged for a while, leaves a run that is being executed alone even
 * when its job vanished from Redis. False when the run is no longer running under that job (the
 * lease was taken over or the run stopped); the executor must then stop (run-lease.int.test.ts).
 */
export async function renewRunLease(tx: TenantTx, id: string, jobId: string): Promise<boolean> {
  if (!isUuid(id)) return false
  const rows = await tx.db
    .update(runs)
    .set({ updatedAt: sql`now()` })
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.id, id),
        rowCheck(and(eq(runs.status, 'running'), eq(runs.leaseJob, jobId))),
      ),
    )
    .returning({ id: runs.id })
  return rows.length > 0
}
