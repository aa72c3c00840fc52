import {
  anchorAuditHead,
  auditEventsBetween,
  auditHeadSeq,
  createAuditSigner,
  listAuditAnchors,
  newestAuditAnchor,
  withTenant,
  type AuditSigner,
  type Database,
} from '@weave/db'
import type { KeyObject } from 'node:crypto'
import type { z } from 'zod'
import { ServiceUnavailableError } from '../http/app-errors.js'
import type {
  AuditAnchorPage,
  AuditAnchorView,
  AuditKeys,
  ListAuditAnchorsQuery,
} from '../schemas/audit-anchors.js'

/** Audit anchors and the export an auditor verifies offline. */
export interface AuditAnchorService {
  /** The public key anchors are signed with (none when this server has no signing key). */
  keys(): AuditKeys
  /** The tenant's anchors, newest first. @throws InvalidCursorError (`invalid-cursor`) */
  list(tenant: string, query: z.infer<typeof ListAuditAnchorsQuery>): Promise<AuditAnchorPage>
  /** Signs the tenant's chain head now. @throws ServiceUnavailableError without a signing key */
  anchor(tenant: string, subject: string): Promise<AuditAnchorView>
  /**
   * The tenant's newest anchor and then every event up to the head as it was when the export
   * began, as NDJSON lines, read a page at a time.
   */
  exportLines(tenant: string): AsyncGenerator<string>
}

const EXPORT_PAGE = 1000

/** Builds the {@link AuditAnchorService}; without a signing key nothing is signed. */
export function createAuditAnchorService(deps: {
  database: Database
  signingKey?: KeyObject | undefined
}): AuditAnchorService {
  const { database } = deps
  const signer: AuditSigner | undefined = deps.signingKey
    ? createAuditSigner(deps.signingKey)
    : undefined
  return {
    keys() {
      return { keys: signer ? [signer.publicKey] : [] }
    },
    async list(tenant, query) {
      return withTenant(database, tenant, (tx) => listAuditAnchors(tx, query))
    },
    async anchor(tenant, subject) {
      if (!signer) {
        throw new ServiceUnavailableError(
          'Audit anchors are not available: this server has no WEAVE_AUDIT_SIGNING_KEY.',
        )
      }
      return withTenant(database, tenant, (tx) => anchorAuditHead(tx, signer, subject))
    },
    async *exportLines(tenant) {
      // The anchor is read before the head, so the head reaches at least the anchor's seq.
      const { anchor, head } = await withTenant(database, tenant, async (tx) => ({
        anchor: await newestAuditAnchor(tx),
        head: await auditHeadSeq(tx),
      }))
      if (anchor) {
        const { publishedAt: _sent, ...signed } = anchor
        yield `${JSON.stringify({ type: 'audit-anchor', ...signed })}\n`
      }
      let afterSeq = 0
      while (afterSeq < head) {
        const events = await withTenant(database, tenant, (tx) =>
          auditEventsBetween(tx, afterSeq, head, EXPORT_PAGE),
        )
        const last = events.at(-1)
        if (!last) return
        yield events
          .map((event) => `${JSON.stringify({ type: 'audit-event', ...event })}\n`)
          .join('')
        afterSeq = last.seq
      }
    },
  }
}
