import { randomUUID } from 'node:crypto'
import type { Json } from '@weave/kernel'
import { type SQL, and, desc, eq, gte, lt, sql } from 'drizzle-orm'
import { type AuditEvent, auditHash, auditHashedJson, toAuditEvent } from './audit-chain.js'
import { chainAuditAfterCommit } from './audit-pending-chain.js'
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
 * gap-free chain (audit.int.test.ts); this call takes it at once and returns the chained event.
 * Writers that need not see the event's seq and hash use `appendAuditAtCommit`, which takes the
 * lock only after the commit, for many events at a time.
 */
export async function appendAudit(tx: TenantTx, input: AuditInput): Promise<AuditEvent> {
  const { unhashed, body, seqMarker, prevMarker } = unchainedAudit(tx.tenant, input)
  const result = await tx.db.execute<{ seq: string | number; prev_hash: string; hash: string }>(
    sql`select seq, prev_hash, hash from weave_append_audit(${tx.tenant}, ${unhashed.id}::uuid,
      ${unhashed.at}::timestamptz, ${unhashed.actor}, ${unhashed.action},
      ${unhashed.target.kind}, ${unhashed.target.id}, ${unhashed.requestId}, ${unhashed.ip},
      ${JSON.stringify(unhashed.details)}::jsonb, ${body}, ${seqMarker}, ${prevMarker})`,
  )
  const row = result.rows[0]!
  const chained: Omit<AuditEvent, 'hash'> = {
    ...unhashed,
    seq: Number(row.seq),
    prevHash: row.prev_hash,
  }
  const event: AuditEvent = { ...chained, hash: auditHash(chained) }
  // The database filled in the markers and hashed; a hash other than this one's would break the
  // chain, so the append fails (and its transaction rolls back) instead.
  if (row.hash !== event.hash) {
    throw new Error(`audit event ${event.id}: the database's hash differs from the chain's`)
  }
  return event
}

/**
 * Appends an audit event that joins the tenant's hash chain after the caller's transaction
 * commits, or never if it rolls back; returns the event's id. The event waits in `audit_pending`
 * without any lock; once the transaction has committed, withTenant calls `weave_chain_audit`
 * (audit-pending-chain.ts), which chains it with every other pending event of the tenant under
 * the chain's lock: the lock is held for that call only, never across this transaction's round
 * trips or its commit. The transaction's own events are chained in the order they were appended;
 * until then the event is not in `audit_events` (audit-append.int.test.ts).
 */
export async function appendAuditAtCommit(
  tx: TenantTx,
  input: AuditInput,
): Promise<{ id: string }> {
  const pending = pendingAuditInsert(tx.tenant, input)
  await tx.db.execute(pending.insert)
  chainAuditAfterCommit(tx)
  return { id: pending.id }
}

/**
 * The insert of an audit event into `audit_pending` (see {@link appendAuditAtCommit}), for a
 * statement that does more in the same round trip; `id` is the event's. The caller chains it
 * after the commit (chainAuditAfterCommit, or chainPendingAudit outside withTenant).
 */
export function pendingAuditInsert(tenant: string, input: AuditInput): { id: string; insert: SQL } {
  const row = pendingAuditRow(tenant, input)
  return {
    id: row.id,
    insert: sql`insert into audit_pending (id, tenant_id, at, actor, action, target_kind,
      target_id, request_id, ip, details, body, seq_marker, prev_marker)
      select id, tenant_id, at, actor, action, target_kind, target_id, request_id, ip, details,
        body, seq_marker, prev_marker
      from jsonb_populate_record(null::audit_pending, ${JSON.stringify(row)}::jsonb)`,
  }
}

/**
 * An audit event's `audit_pending` row, column by column, for `jsonb_populate_record`: how
 * pendingAuditInsert and weave_decide_approval (migration 0042) insert it.
 */
export function pendingAuditRow(
  tenant: string,
  input: AuditInput,
): { id: string } & Record<string, Json> {
  const { unhashed, body, seqMarker, prevMarker } = unchainedAudit(tenant, input)
  return {
    id: unhashed.id,
    tenant_id: tenant,
    at: unhashed.at,
    actor: unhashed.actor,
    action: unhashed.action,
    target_kind: unhashed.target.kind,
    target_id: unhashed.target.id,
    request_id: unhashed.requestId,
    ip: unhashed.ip,
    details: unhashed.details,
    body,
    seq_marker: seqMarker,
    prev_marker: prevMarker,
  }
}

/** An audit event before it is chained, as the database chains it (weave_chain_audit). */
export interface UnchainedAudit {
  unhashed: Omit<AuditEvent, 'hash'>
  /** The canonical JSON the event's hash covers, with the markers in it. */
  body: string
  /** The quoted marker in `body` where the event's seq goes. */
  seqMarker: string
  /** The marker in `body` where the previous event's hash goes. */
  prevMarker: string
}

/**
 * The event before it is chained, and the canonical JSON its hash covers with markers where the
 * seq and the previous hash go: both are known only under the chain's lock, in the database.
 */
export function unchainedAudit(tenant: string, input: AuditInput): UnchainedAudit {
  // A JSON round trip stores and hashes the same value jsonb will hand back.
  const details = JSON.parse(JSON.stringify(input.details ?? {})) as Json
  // randomUUID serves from random data Node generates ahead for 128 UUIDs at a time;
  // randomBytes would call into the CSPRNG on every audited change.
  const marker = randomUUID()
  const seqMarker = `seq-${marker}`
  const prevMarker = `prev-${marker}`
  const unhashed: Omit<AuditEvent, 'hash'> = {
    id: randomUUID(),
    seq: 0,
    // Millisecond ISO time: what timestamptz(3) stores and reads back unchanged.
    at: new Date().toISOString(),
    tenant,
    actor: input.actor,
    action: input.action,
    target: { kind: input.target.kind, id: input.target.id },
    requestId: input.requestId ?? input.context?.requestId ?? null,
    ip: input.ip ?? input.context?.ip ?? null,
    details,
    prevHash: prevMarker,
  }
  const body = auditHashedJson({ ...unhashed, seq: seqMarker as unknown as number })
  return { unhashed, body, seqMarker, prevMarker }
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
