import type { SQL } from 'drizzle-orm'
import { chainAuditAfterCommit, chainPendingAudit } from '../audit-pending-chain.js'
import type { Database, TenantTx } from '../client.js'

/**
 * Where a decision's statements go (decideApproval): a read, then one write that commits the
 * decision with its run event and audit event or writes nothing. Each statement sets the tenant
 * for row-level security itself, so they run alike in a transaction or alone.
 */
export interface DecisionStatements {
  readonly tenant: string
  execute<T extends Record<string, unknown>>(query: SQL): Promise<T[]>
  /** Asks for the tenant's audit chain once the decision's write has committed. */
  chainAuditAfterCommit(): void
}

/**
 * A decision in the caller's transaction: an approval link's, which uses its token up in the
 * same commit.
 */
export function decisionInTransaction(tx: TenantTx): DecisionStatements {
  return {
    tenant: tx.tenant,
    execute: async <T extends Record<string, unknown>>(query: SQL) =>
      (await tx.db.execute<T>(query)).rows as T[],
    chainAuditAfterCommit: () => chainAuditAfterCommit(tx),
  }
}

/**
 * A decision whose statements each commit on their own, on the pool: no transaction is held open
 * between them, and the write's locks last one statement. `afterWrite` chains the audit event the
 * write left pending, if any; it never rejects.
 */
export function decisionOnPool(
  database: Pick<Database, 'db' | 'pool'>,
  tenant: string,
): { statements: DecisionStatements; afterWrite: () => Promise<void> } {
  if (typeof tenant !== 'string' || tenant.length === 0) {
    throw new TypeError('tenant must be a non-empty string')
  }
  let chainDue = false
  return {
    statements: {
      tenant,
      execute: async <T extends Record<string, unknown>>(query: SQL) =>
        (await database.db.execute<T>(query)).rows as T[],
      chainAuditAfterCommit: () => {
        chainDue = true
      },
    },
    afterWrite: () => (chainDue ? chainPendingAudit(database.pool, tenant) : Promise.resolve()),
  }
}
