import { sql } from 'drizzle-orm'
import { check, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core'
import { DECISIONS, approvals } from './approvals.js'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'
import { webhooks } from './webhooks.js'

/**
 * Single-use approval links: the SHA-256 of each token, bound to one approval, tenant, recipient,
 * the material hash the approval showed when the link was made and, for a webhook's approveUrl or
 * rejectUrl, one decision. A page link (`/inbox/a/{token}`, addressed to a named approver) has no
 * decision: its recipient chooses on the page. A webhook's token is kept only encrypted (secret
 * box), so every attempt of a delivery carries the same link while no stored row, event or
 * payload holds it in clear; a page link's token is handed out once and never stored.
 */
export const approvalTokens = pgTable(
  'approval_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    approvalId: uuid('approval_id')
      .notNull()
      .references(() => approvals.id),
    // null: a page link, whose recipient picks the decision.
    decision: text('decision', { enum: DECISIONS }),
    tokenHash: text('token_hash').notNull().unique('approval_tokens_token_hash'),
    materialHash: text('material_hash').notNull(),
    recipient: text('recipient').notNull(),
    // The webhook whose deliveries carry the link (recipient `webhook:<id>`).
    webhookId: uuid('webhook_id').references(() => webhooks.id),
    tokenCiphertext: text('token_ciphertext'),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    unique('approval_tokens_approval_webhook_decision').on(t.approvalId, t.webhookId, t.decision),
    check(
      'approval_tokens_decision_check',
      sql.raw(`decision in (${DECISIONS.map((d) => `'${d}'`).join(', ')})`),
    ),
    tenantIsolation(),
  ],
)
