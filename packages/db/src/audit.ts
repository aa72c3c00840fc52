import { randomUUID } from 'node:crypto'
import type { Json } from '@weave/kernel'
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm'
import { type AuditEvent, GENESIS_HASH, auditHash, toAuditEvent } from './audit-chain.js'
import type { TenantTx } from './client.js'
import { decodeCursor, pageSize, toPage } from './cursor.js'
import type { Page, PageOptions } from './page.js'
import { auditEvents } from './schema/audit.js'

/** Where a change came from: the request that asked for it. */
export interface AuditContext {
  /** The request's `X-Request-Id`. */
  requestId?: string | null
  /** The client's address. */
  ip?: string | null
}

/** What happened, by whom, to what: the caller's part of an audit event. */
export interface AuditInput extends AuditContext {
  actor: string
  action: string
  target: { kind: string; id: string }
  details?: Json
  /** The request it came from; its fields fill `requestId` and `ip` when those are absent. */
  context?: AuditContext
}

/**
 * Appends an audit event to the tenant's hash chain, in the caller's transaction so it commits
 * or rolls back with the change it records. Writers of one tenant serialise on a
 * transaction-scoped advisory lock held until commit, so concurrent transactions still form one
 * gap-free chain (audit.int.test.ts); call it last in a transaction to hold that lock briefly.
 */
export async function appendAudit(tx: TenantTx, input: AuditInput): Promise<AuditEvent> {
  // The chain's lock and its head in one round trip (weave_audit_head, migration 0018).
  const head = await tx.db.execute<{ seq: string | number; hash: string }>(
    sql`select seq, hash from weave_audit_head(${tx.tenant})`,
  )
  const row = head.rows[0]
  const last = row ? { seq: Number(row.seq), hash: row.hash } : undefined
  // A JSON round trip stores and hashes the same value jsonb will hand back.
  const details = JSON.parse(JSON.stringify(input.details ?? {})) as Json
  const unhashed: Omit<AuditEvent, 'hash'> = {
    id: randomUUID(),
    seq: (last?.seq ?? 0) + 1,
    // Millisecond ISO time: what timestamptz(3) stores and reads back unchanged.
    at: new Date().toISOString(),
    tenant: tx.tenant,
    actor: input.actor,
    action: input.action,
    target: { kind: input.target.kind, id: input.target.id },
    requestId: input.requestId ?? input.context?.requestId ?? null,
    ip: input.ip ?? input.context?.ip ?? null,
    details,
    prevHash: last?.hash ?? GENESIS_HASH,
  }
  const event: AuditEvent = { ...unhashed, hash: auditHash(unhashed) }
  await tx.db.insert(auditEvents).values({
    id: event.id,
    tenantId: event.tenant,
    seq: event.seq,
    at: new Date(event.at),
    actor: event.actor,
    action: event.action,
    targetKind: event.target.kind,
    targetId: event.target.id,
    requestId: event.requestId,
    ip: event.ip,
    details: event.details,
    prevHash: event.prevHash,
    hash: event.hash,
  })
  return event
}

/** Filters of `listAudit`; `since` is inclusive, `until` exclusive. */
export interface ListAuditOptions extends PageOptions {
  action?: string
  actor?: string
  targetId?: string
  since?: Date
  until?: Date
}

/**
 * The tenant's audit events, newest first, filtered by action, actor, target id and time.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listAudit(
  tx: TenantTx,
  options: ListAuditOptions = {},
): Promise<Page<AuditEvent>> {
  const limit = pageSize(options.limit)
  const beforeSeq = options.cursor ? decodeCursor(options.cursor, ['number'] as const)[0] : null
  const rows = await tx.db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, tx.tenant),
        options.action === undefined ? undefined : eq(auditEvents.action, options.action),
        options.actor === undefined ? undefined : eq(auditEvents.actor, options.actor),
        options.targetId === undefined ? undefined : eq(auditEvents.targetId, options.targetId),
        options.since === undefined ? undefined : gte(auditEvents.at, options.since),
        options.until === undefined ? undefined : lt(auditEvents.at, options.until),
        beforeSeq === null ? undefined : lt(auditEvents.seq, beforeSeq),
      ),
    )
    .orderBy(desc(auditEvents.seq))
    .limit(limit + 1)
  const page = toPage(rows, limit, (r) => [r.seq])
  return { items: page.items.map(toAuditEvent), nextCursor: page.nextCursor }
}
