import type pg from 'pg'
import { reportAuditChainError } from './audit-chain-errors.js'
import type { TenantTx } from './client.js'
import { TENANT_SETTING } from './schema/roles.js'

/**
 * Pending audit events (`audit_pending`) join their tenant's chain after the commit of the change
 * they record: `weave_chain_audit` (migration 0037) chains every pending event of the tenant under
 * the chain's lock, in one transaction. A process asks for it after each commit that left events
 * pending; asks of one tenant that arrive while a chain call is in flight share the next call,
 * which starts after that one ends, so its query sees their events. Under load a tenant's
 * commits are chained a batch at a time, with one lock and one WAL flush per batch.
 */

// One statement in its own implicit transaction: the tenant for the function's check, then the
// call. Named, so each pooled connection parses and plans it once.
const CHAIN_AUDIT = {
  name: 'weave_chain_audit',
  text:
    `with tenant as materialized (select set_config('${TENANT_SETTING}', $1, true)) ` +
    'select weave_chain_audit($1) as chained from tenant',
}

interface TenantChain {
  running: Promise<void> | null
  queued: Promise<void> | null
}

const chainsByPool = new WeakMap<pg.Pool, Map<string, TenantChain>>()

/**
 * Chains the tenant's pending audit events, those committed before this call included. Never
 * rejects: a failure (Postgres away) is reported to the pool's handler and leaves the events
 * pending, durable, for a later call or the reconciler.
 */
export function chainPendingAudit(pool: pg.Pool, tenant: string): Promise<void> {
  let chains = chainsByPool.get(pool)
  if (!chains) {
    chains = new Map()
    chainsByPool.set(pool, chains)
  }
  const byTenant = chains
  let chain = byTenant.get(tenant)
  if (!chain) {
    chain = { running: null, queued: null }
    byTenant.set(tenant, chain)
  }
  const state = chain
  const request = (): Promise<void> => {
    if (state.running === null) {
      state.running = chainOnce(pool, tenant).finally(() => {
        state.running = null
        if (state.queued === null) byTenant.delete(tenant)
      })
      return state.running
    }
    // The call in flight may have read the pending events before this caller's commit: the
    // next one, started once it ends, will not have.
    state.queued ??= state.running.then(() => {
      state.queued = null
      return request()
    })
    return state.queued
  }
  return request()
}

async function chainOnce(pool: pg.Pool, tenant: string): Promise<void> {
  try {
    await pool.query({ ...CHAIN_AUDIT, values: [tenant] })
  } catch (err) {
    reportAuditChainError(pool, err, tenant)
  }
}

const chainQueued = new WeakSet<TenantTx>()

/** Queues one chain call of the transaction's tenant for after its commit (once per transaction). */
export function chainAuditAfterCommit(tx: TenantTx): void {
  if (chainQueued.has(tx)) return
  chainQueued.add(tx)
  tx.afterCommit((pool) => chainPendingAudit(pool, tx.tenant))
}

/**
 * Chains the pending events of every tenant that has some: the reconciler's repair for events
 * whose writer stopped between its commit and its chain call. Returns how many it chained.
 */
export async function chainAllPendingAudit(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ tenant: string }>(
    'select weave_audit_pending_tenants() as tenant',
  )
  let chained = 0
  for (const { tenant } of rows) {
    const { rows: done } = await pool.query<{ chained: number }>({
      ...CHAIN_AUDIT,
      values: [tenant],
    })
    chained += done[0]?.chained ?? 0
  }
  return chained
}
