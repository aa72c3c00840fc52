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
import { ConflictError, ServiceUnavailableError } from '../http/app-errors.js'
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
  /**
   * Signs the tenant's chain head now.
   * @throws ServiceUnavailableError without a signing key
   * @throws ConflictError when the chain is shorter than its newest anchor (events were removed)
   */
  anchor(tenant: string, subject: string): Promise<AuditAnchorView>
  /**
   * The tenant's newest anchor and then every event up to the head as it was when the export
   * began, as NDJSON lines, read a page at a time.
   */
  exportLines(tenant: string): AsyncGenerator<string>
}

const EXPORT_PAGE = 1000
const CHECK_VIOLATION = '23514'

/** The Postgres SQLSTATE along the `cause` chain (drizzle wraps the driver's error). */
function sqlStateOf(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown }
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
    current = cause
  }
  return undefined
}

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
      try {
        return await withTenant(database, tenant, (tx) => anchorAuditHead(tx, signer, subject))
      } catch (err) {
        // The database stores only an anchor of the head, never one below the newest anchor
        // (migration audit-anchor-head): under the chain's lock the head is read and signed as
        // it is, so the one refusal left is a chain cut below an anchor.
        if (sqlStateOf(err) !== CHECK_VIOLATION) throw err
        throw new ConflictError(
          'The audit chain is shorter than its newest anchor: events it signed were removed. ' +
            'GET /v1/audit/verify names the first missing seq.',
          { cause: err },
        )
      }
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
