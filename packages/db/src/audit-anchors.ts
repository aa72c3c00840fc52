import { randomUUID } from 'node:crypto'
import { and, asc, desc, eq, gt, isNull, lte, sql } from 'drizzle-orm'
import { type AuditEvent, GENESIS_HASH, toAuditEvent } from './audit-chain.js'
import type { AuditSigner, SignedAnchor } from './audit-signing.js'
import type { Database, TenantTx } from './client.js'
import { decodeTimeCursor, newestFirst, pageSize, toPage } from './cursor.js'
import type { Page, PageOptions } from './page.js'
import { auditAnchors } from './schema/audit-anchors.js'
import { auditEvents } from './schema/audit.js'
import { isUuid } from './uuid.js'

/** A stored anchor: the signed statement, who asked for it, and when the webhook took it. */
export interface AuditAnchor extends SignedAnchor {
  id: string
  /** `system` for a scheduled anchor, else the subject that asked for it. */
  createdBy: string
  /** When the anchor webhook accepted it; null while it was not sent (or none is configured). */
  publishedAt: string | null
}

/** The actor of the anchors the worker's schedule makes. */
export const SYSTEM_ANCHOR_ACTOR = 'system'

function toAnchor(row: typeof auditAnchors.$inferSelect): AuditAnchor {
  return {
    id: row.id,
    tenant: row.tenantId,
    seq: row.seq,
    hash: row.hash,
    at: row.at.toISOString(),
    keyId: row.keyId,
    signature: row.signature,
    createdBy: row.createdBy,
    publishedAt: row.publishedAt?.toISOString() ?? null,
  }
}

/**
 * Signs the current head of the tenant's audit chain (seq 0 and the genesis hash for an empty
 * one) and stores the anchor. Takes the chain's append lock, so the head it signs is not being
 * extended by a transaction that commits later with a lower time.
 */
export async function anchorAuditHead(
  tx: TenantTx,
  signer: AuditSigner,
  createdBy: string,
): Promise<AuditAnchor> {
  await tx.db.execute(sql`select pg_advisory_xact_lock(hashtext(${'audit:' + tx.tenant}))`)
  const [head] = await tx.db
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .where(eq(auditEvents.tenantId, tx.tenant))
    .orderBy(desc(auditEvents.seq))
    .limit(1)
  const signed = signer.sign({
    tenant: tx.tenant,
    seq: head?.seq ?? 0,
    hash: head?.hash ?? GENESIS_HASH,
    at: new Date().toISOString(),
  })
  const [row] = await tx.db
    .insert(auditAnchors)
    .values({
      id: randomUUID(),
      tenantId: tx.tenant,
      seq: signed.seq,
      hash: signed.hash,
      at: new Date(signed.at),
      keyId: signed.keyId,
      signature: signed.signature,
      createdBy,
    })
    .returning()
  return toAnchor(row!)
}

/**
 * The tenant's anchors, newest first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listAuditAnchors(
  tx: TenantTx,
  options: PageOptions = {},
): Promise<Page<AuditAnchor>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  const rows = await tx.db
    .select()
    .from(auditAnchors)
    .where(
      and(
        eq(auditAnchors.tenantId, tx.tenant),
        after
          ? sql`(${auditAnchors.at}, ${auditAnchors.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(...newestFirst(auditAnchors.at, auditAnchors.id))
    .limit(limit + 1)
  const page = toPage(rows, limit, (a) => [a.at.toISOString(), a.id])
  return { items: page.items.map(toAnchor), nextCursor: page.nextCursor }
}

/** The tenant's newest anchor: the highest seq signed, the latest of those. */
export async function newestAuditAnchor(tx: TenantTx): Promise<AuditAnchor | undefined> {
  const [row] = await tx.db
    .select()
    .from(auditAnchors)
    .where(eq(auditAnchors.tenantId, tx.tenant))
    .orderBy(...newestFirst(auditAnchors.seq, auditAnchors.at))
    .limit(1)
  return row ? toAnchor(row) : undefined
}

/** One anchor of the tenant, if it has it. */
export async function getAuditAnchor(tx: TenantTx, id: string): Promise<AuditAnchor | undefined> {
  if (!isUuid(id)) return undefined
  const [row] = await tx.db
    .select()
    .from(auditAnchors)
    .where(and(eq(auditAnchors.tenantId, tx.tenant), eq(auditAnchors.id, id)))
  return row ? toAnchor(row) : undefined
}

/** Records that the anchor webhook accepted an anchor; false when it was already recorded. */
export async function markAuditAnchorPublished(tx: TenantTx, id: string): Promise<boolean> {
  const rows = await tx.db
    .update(auditAnchors)
    .set({ publishedAt: new Date() })
    .where(
      and(
        eq(auditAnchors.tenantId, tx.tenant),
        eq(auditAnchors.id, id),
        isNull(auditAnchors.publishedAt),
      ),
    )
    .returning({ id: auditAnchors.id })
  return rows.length > 0
}

/**
 * The tenant's events with `afterSeq < seq <= untilSeq`, oldest first, at most `limit`: the pages
 * of an export.
 */
export async function auditEventsBetween(
  tx: TenantTx,
  afterSeq: number,
  untilSeq: number,
  limit: number,
): Promise<AuditEvent[]> {
  const rows = await tx.db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, tx.tenant),
        gt(auditEvents.seq, afterSeq),
        lte(auditEvents.seq, untilSeq),
      ),
    )
    .orderBy(asc(auditEvents.seq))
    .limit(limit)
  return rows.map(toAuditEvent)
}

/** The seq of the tenant's newest event (0 without events). */
export async function auditHeadSeq(tx: TenantTx): Promise<number> {
  const [head] = await tx.db
    .select({ seq: auditEvents.seq })
    .from(auditEvents)
    .where(eq(auditEvents.tenantId, tx.tenant))
    .orderBy(desc(auditEvents.seq))
    .limit(1)
  return head?.seq ?? 0
}

/** A tenant whose chain grew past its newest anchor. */
export interface UnanchoredHead {
  tenant: string
  seq: number
}

/**
 * Tenants of every tenant whose audit chain has events past its newest anchor, by tenant id after
 * `afterTenant`: the anchor job's only cross-tenant read (a SECURITY DEFINER function).
 */
export async function listUnanchoredHeads(
  database: Pick<Database, 'db'>,
  options: { afterTenant?: string | null; limit?: number } = {},
): Promise<UnanchoredHead[]> {
  const result = await database.db.execute<{ tenant_id: string; seq: string | number }>(
    sql`select * from weave_audit_heads_to_anchor(${options.afterTenant ?? null}, ${clamp(options.limit)})`,
  )
  return result.rows.map((r) => ({ tenant: r.tenant_id, seq: Number(r.seq) }))
}

/** Anchors of every tenant not yet accepted by the anchor webhook, oldest first. */
export async function listUnpublishedAuditAnchors(
  database: Pick<Database, 'db'>,
  options: { limit?: number } = {},
): Promise<Array<{ tenant: string; id: string }>> {
  const result = await database.db.execute<{ tenant_id: string; id: string }>(
    sql`select * from weave_unpublished_audit_anchors(${clamp(options.limit)})`,
  )
  return result.rows.map((r) => ({ tenant: r.tenant_id, id: r.id }))
}

function clamp(limit: number | undefined): number {
  return Math.min(1000, Math.max(1, Math.trunc(limit ?? 100)))
}
