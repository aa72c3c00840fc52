import { sql } from 'drizzle-orm'
import { bigint, index, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'

/**
 * Signed heads of each tenant's audit chain (audit-anchors.ts): proof, outside the chain itself,
 * of how far it went and what its head was. The `audit-anchor-grants` migration lets the app role
 * add anchors and mark them published, never change what was signed.
 */
export const auditAnchors = pgTable(
  'audit_anchors',
  {
    id: uuid('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    // The head's seq and hash; 0 and the genesis hash for a tenant without events.
    seq: bigint('seq', { mode: 'number' }).notNull(),
    hash: text('hash').notNull(),
    // When it was signed.
    at: timestamptz('at').notNull(),
    keyId: text('key_id').notNull(),
    // Ed25519 over the anchor's canonical statement, base64url.
    signature: text('signature').notNull(),
    // `system` for the scheduled anchors, else the subject that asked.
    createdBy: text('created_by').notNull(),
    // When the configured anchor webhook accepted it; null while not (yet) sent.
    publishedAt: timestamptz('published_at'),
  },
  (t) => [
    index('audit_anchors_tenant_seq').on(t.tenantId, t.seq.desc(), t.at.desc()),
    index('audit_anchors_tenant_at').on(t.tenantId, t.at.desc(), t.id.desc()),
    // The publisher's cross-tenant scan (weave_unpublished_audit_anchors).
    index('audit_anchors_unpublished')
      .on(t.at)
      .where(sql`published_at is null`),
    tenantIsolation(),
  ],
)
