import { appendAuditAtCommit, type TenantTx } from '@weave/db'
import type { Json } from '@weave/kernel'
import type { Principal } from '../auth/principal.js'
import type { AuditContext } from './deps.js'

/** What a request changed, as its audit event names it. */
export interface AuditedChange {
  /** E.g. `run.started`, `webhook.deleted`. */
  action: string
  target: { kind: string; id: string }
  details?: Json
}

/**
 * Records a client's change in the tenant's audit chain, in the transaction that makes the change
 * (so both commit or neither does), with the caller as actor and the request's id and address.
 * The event is chained when the transaction commits (appendAuditAtCommit), so the tenant's audit
 * lock is held for the commit alone, wherever in the transaction this is called.
 */
export function auditRequest(
  tx: TenantTx,
  by: { principal: Pick<Principal, 'subject'>; context: AuditContext },
  change: AuditedChange,
): Promise<{ id: string }> {
  return appendAuditAtCommit(tx, { actor: by.principal.subject, context: by.context, ...change })
}
