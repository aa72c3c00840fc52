import { sql } from 'drizzle-orm'
import { check, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { DECISIONS, approvals } from './approvals.js'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'

/**
 * Single-use approval links: only the SHA-256 of each token is stored, bound to one approval,
 * tenant, decision and the material hash the approval showed when the link was made.
 */
export const approvalTokens = pgTable(
  'approval_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    approvalId: uuid('approval_id')
      .notNull()
      .references(() => approvals.id),
    decision: text('decision', { enum: DECISIONS }).notNull(),
    tokenHash: text('token_hash').notNull().unique('approval_tokens_token_hash'),
    materialHash: text('material_hash').notNull(),
    recipient: text('recipient').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  () => [
    check(
      'approval_tokens_decision_check',
      sql.raw(`decision in (${DECISIONS.map((d) => `'${d}'`).join(', ')})`),
    ),
    tenantIsolation(),
  ],
)
