import { and, asc, eq, gt } from 'drizzle-orm'
import type { KeyObject } from 'node:crypto'
import { type AuditEvent, GENESIS_HASH, auditHash, toAuditEvent } from './audit-chain.js'
import { isAnchorSignedBy, type SignedAnchor } from './audit-signing.js'
import { newestFirst } from './cursor.js'
import type { TenantTx } from './client.js'
import { auditAnchors } from './schema/audit-anchors.js'
import { auditEvents } from './schema/audit.js'

/**
 * How a chain is broken:
 * - `truncated`: it ends before the seq its anchor signed (its newest events were deleted);
 * - `gap`: an event in the middle is missing;
 * - `edited`: an event's content no longer hashes to its hash, an event was rewritten with a
 *   recomputed hash (the next event still names the old one), or the event at the anchor's seq is
 *   not the one signed;
 * - `reordered`: an intact event sits at another seq than the one it was written at;
 * - `anchor-invalid`: the anchor's signature does not verify under the public key.
 */
export type AuditProblem = 'truncated' | 'gap' | 'edited' | 'reordered' | 'anchor-invalid'

/** The anchor a verification checked the chain against. */
export type CheckedAnchor = Pick<SignedAnchor, 'seq' | 'hash' | 'at' | 'keyId'>

/**
 * Result of a verification. `checked` counts the events read, up to and including a bad one;
 * `firstBadSeq` is the first seq that is wrong (for a gap or a truncation, the first missing one),
 * `firstBadId` the event there when there is one.
 */
export interface AuditVerification {
  ok: boolean
  checked: number
  /** The newest anchor the chain was checked against; null without one. */
  anchor: CheckedAnchor | null
  problem?: AuditProblem
  firstBadSeq?: number
  firstBadId?: string
}

/** Finds an event of the chain by its hash: how a moved event's original seq is found. */
export type FindEventByHash = (hash: string) => Promise<AuditEvent | undefined>

// How many moved events deep a reordering is traced before the event counts as edited.
const MAX_TRACE_DEPTH = 64

/**
 * Checks a tenant's chain event by event in seq order, then against its newest anchor: the
 * streaming core of {@link verifyAudit} and of the offline `weave audit verify-export`.
 */
export class AuditChainVerifier {
  private checked = 0
  private prev: { seq: number; hash: string; id: string | null } = {
    seq: 0,
    hash: GENESIS_HASH,
    id: null,
  }
  private failure: Omit<AuditVerification, 'anchor' | 'checked' | 'ok'> | undefined

  constructor(
    private readonly anchor: SignedAnchor | null,
    private readonly findByHash: FindEventByHash,
  ) {}

  /** Whether a broken link was found; once it was, later events are not read. */
  get failed(): boolean {
    return this.failure !== undefined
  }

  /** Checks the next event (events must come in ascending seq order). */
  async push(event: AuditEvent): Promise<void> {
    if (this.failure) return
    this.checked += 1
    const expected = this.prev.seq + 1
    if (event.seq !== expected) {
      this.failure = { problem: 'gap', firstBadSeq: expected, firstBadId: event.id }
      return
    }
    if (!hashesTo(event, event.seq)) {
      const original = await this.originalSeq(event, 0)
      this.failure = {
        problem: original !== undefined && original !== event.seq ? 'reordered' : 'edited',
        firstBadSeq: event.seq,
        firstBadId: event.id,
      }
      return
    }
    if (event.prevHash !== this.prev.hash) {
      // Both events hash correctly, so one was rewritten with a recomputed hash: the earlier one,
      // unless the chain starts here.
      this.failure =
        this.prev.id === null
          ? { problem: 'edited', firstBadSeq: event.seq, firstBadId: event.id }
          : { problem: 'edited', firstBadSeq: this.prev.seq, firstBadId: this.prev.id }
      return
    }
    if (this.anchor && event.seq === this.anchor.seq && event.hash !== this.anchor.hash) {
      this.failure = { problem: 'edited', firstBadSeq: event.seq, firstBadId: event.id }
      return
    }
    this.prev = { seq: event.seq, hash: event.hash, id: event.id }
  }

  /** The verdict, once every event was pushed (or a broken one was found). */
  result(): AuditVerification {
    const anchor = this.anchor
      ? {
          seq: this.anchor.seq,
          hash: this.anchor.hash,
          at: this.anchor.at,
          keyId: this.anchor.keyId,
        }
      : null
    if (this.failure) return { ok: false, checked: this.checked, anchor, ...this.failure }
    if (this.anchor && this.prev.seq < this.anchor.seq) {
      return {
        ok: false,
        checked: this.checked,
        anchor,
        problem: 'truncated',
        firstBadSeq: this.prev.seq + 1,
      }
    }
    return { ok: true, checked: this.checked, anchor }
  }

  /**
   * The seq an intact event was written at, traced through the event its prevHash names (itself
   * possibly moved); undefined when its content does not hash at that seq either.
   */
  private async originalSeq(event: AuditEvent, depth: number): Promise<number | undefined> {
    if (hashesTo(event, event.seq)) return event.seq
    if (depth >= MAX_TRACE_DEPTH) return undefined
    let candidate: number | undefined
    if (event.prevHash === GENESIS_HASH) candidate = 1
    else {
      const previous = await this.findByHash(event.prevHash)
      const previousSeq = previous ? await this.originalSeq(previous, depth + 1) : undefined
      candidate = previousSeq === undefined ? undefined : previousSeq + 1
    }
    return candidate !== undefined && hashesTo(event, candidate) ? candidate : undefined
  }
}

function hashesTo(event: AuditEvent, seq: number): boolean {
  const { hash, ...unhashed } = event
  return auditHash({ ...unhashed, seq }) === hash
}

/**
 * Checks an anchor before a chain is verified against it: a verdict of `anchor-invalid` when its
 * signature does not verify under `publicKey` or it names another tenant, else undefined.
 */
export function anchorProblem(
  anchor: SignedAnchor,
  tenant: string,
  publicKey: KeyObject,
): AuditVerification | undefined {
  if (anchor.tenant === tenant && isAnchorSignedBy(anchor, publicKey)) return undefined
  return {
    ok: false,
    checked: 0,
    anchor: { seq: anchor.seq, hash: anchor.hash, at: anchor.at, keyId: anchor.keyId },
    problem: 'anchor-invalid',
  }
}

const BATCH = 1000

/** Options of {@link verifyAudit}. */
export interface VerifyAuditOptions {
  /**
   * The key anchors are verified with. Without it the chain is checked on its own: a deletion of
   * its newest events is then invisible.
   */
  publicKey?: KeyObject
}

/**
 * Walks the tenant's audit chain in seq order and checks each event: its seq follows the
 * previous one without a gap, its content hashes to its hash at that seq, and its prevHash is the
 * previous event's hash. With a public key the chain is then checked against the tenant's newest
 * anchor (the highest seq signed): it must reach that seq, with the signed hash there, so a
 * deletion of the newest events is found too (audit-anchors.int.test.ts).
 */
export async function verifyAudit(
  tx: TenantTx,
  options: VerifyAuditOptions = {},
): Promise<AuditVerification> {
  let anchor: SignedAnchor | null = null
  if (options.publicKey) {
    const [row] = await tx.db
      .select()
      .from(auditAnchors)
      .where(eq(auditAnchors.tenantId, tx.tenant))
      .orderBy(...newestFirst(auditAnchors.seq, auditAnchors.at))
      .limit(1)
    if (row) {
      anchor = {
        tenant: row.tenantId,
        seq: row.seq,
        hash: row.hash,
        at: row.at.toISOString(),
        keyId: row.keyId,
        signature: row.signature,
      }
      const problem = anchorProblem(anchor, tx.tenant, options.publicKey)
      if (problem) return problem
    }
  }
  const verifier = new AuditChainVerifier(anchor, async (hash) => {
    const [row] = await tx.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tx.tenant), eq(auditEvents.hash, hash)))
      .limit(1)
    return row ? toAuditEvent(row) : undefined
  })
  let afterSeq = 0
  for (;;) {
    const rows = await tx.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tx.tenant), gt(auditEvents.seq, afterSeq)))
      .orderBy(asc(auditEvents.seq))
      .limit(BATCH)
    for (const row of rows) {
      await verifier.push(toAuditEvent(row))
      if (verifier.failed) return verifier.result()
    }
    const last = rows.at(-1)
    if (rows.length < BATCH || !last) return verifier.result()
    afterSeq = last.seq
  }
}
