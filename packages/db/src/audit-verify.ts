import { and, asc, eq, gt } from 'drizzle-orm'
import { GENESIS_HASH, auditHash, toAuditEvent } from './audit-chain.js'
import type { TenantTx } from './client.js'
import { auditEvents } from './schema/audit.js'

/** Result of `verifyAudit`: `checked` counts the events read, up to and including a bad one. */
export interface AuditVerification {
  ok: boolean
  checked: number
  /** The first event that breaks the chain: edited, after a deleted one, or swapped. */
  firstBadId?: string
}

const BATCH = 1000

/**
 * Walks the tenant's audit chain in sequence order and checks each event: its seq follows the
 * previous one without a gap (a deleted event), its prevHash is the previous event's hash, and
 * its hash is recomputed from its content (an edited or swapped event) (audit.int.test.ts).
 * Deleting the newest events leaves a valid shorter chain: the append-only trigger and
 * privileges are what prevent that.
 */
export async function verifyAudit(tx: TenantTx): Promise<AuditVerification> {
  let checked = 0
  let prevSeq = 0
  let prevHash = GENESIS_HASH
  for (;;) {
    const rows = await tx.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tx.tenant), gt(auditEvents.seq, prevSeq)))
      .orderBy(asc(auditEvents.seq))
      .limit(BATCH)
    for (const row of rows) {
      checked += 1
      const event = toAuditEvent(row)
      const { hash, ...unhashed } = event
      const isIntact =
        event.seq === prevSeq + 1 && event.prevHash === prevHash && auditHash(unhashed) === hash
      if (!isIntact) return { ok: false, checked, firstBadId: event.id }
      prevSeq = event.seq
      prevHash = hash
    }
    if (rows.length < BATCH) return { ok: true, checked }
  }
}
