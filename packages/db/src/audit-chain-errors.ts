import type pg from 'pg'

/** Receives a failed chain call; the events stay pending for the next call or the reconciler. */
export type AuditChainErrorHandler = (err: Error, tenant: string) => void

const handlers = new WeakMap<pg.Pool, AuditChainErrorHandler>()

/** Where a pool's failed audit chain calls are reported (createDb's `onAuditChainError`). */
export function onAuditChainError(pool: pg.Pool, handler: AuditChainErrorHandler): void {
  handlers.set(pool, handler)
}

/** Reports a failed chain call of `tenant` to the pool's handler, if it has one. */
export function reportAuditChainError(pool: pg.Pool, err: unknown, tenant: string): void {
  handlers.get(pool)?.(err instanceof Error ? err : new Error(String(err)), tenant)
}
