import type { Json } from '@weave/kernel'
import { canonicalJson } from '@weave/spec'
import { sha256Hex } from './hash.js'
import type { auditEvents } from './schema/audit.js'

/** The previous hash of a tenant's first audit event. */
export const GENESIS_HASH = '0'.repeat(64)

/** An audit event as the API shows it and as its hash covers it (plus `hash`). */
export interface AuditEvent {
  id: string
  seq: number
  /** ISO 8601 with milliseconds, exactly as stored. */
  at: string
  tenant: string
  actor: string
  action: string
  target: { kind: string; id: string }
  requestId: string | null
  ip: string | null
  details: Json
  prevHash: string
  hash: string
}

/** `hash = sha256(prevHash + canonicalJson(event without hash))` (docs/http-api.md, Audit log). */
export function auditHash(event: Omit<AuditEvent, 'hash'>): string {
  return sha256Hex(event.prevHash + auditHashedJson(event))
}

/** The canonical JSON of an event that its hash covers (after the previous hash). */
export function auditHashedJson(event: Omit<AuditEvent, 'hash'>): string {
  const body: Omit<AuditEvent, 'hash'> = {
    id: event.id,
    seq: event.seq,
    at: event.at,
    tenant: event.tenant,
    actor: event.actor,
    action: event.action,
    target: { kind: event.target.kind, id: event.target.id },
    requestId: event.requestId,
    ip: event.ip,
    details: event.details,
    prevHash: event.prevHash,
  }
  return canonicalJson(body)
}

/** The API view of a stored audit row. */
export function toAuditEvent(row: typeof auditEvents.$inferSelect): AuditEvent {
  return {
    id: row.id,
    seq: row.seq,
    at: row.at.toISOString(),
    tenant: row.tenantId,
    actor: row.actor,
    action: row.action,
    target: { kind: row.targetKind, id: row.targetId },
    requestId: row.requestId,
    ip: row.ip,
    details: row.details as Json,
    prevHash: row.prevHash,
    hash: row.hash,
  }
}
