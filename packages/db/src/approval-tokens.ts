import { randomBytes, timingSafeEqual } from 'node:crypto'
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database, TenantTx } from './client.js'
import { ApprovalLinkError } from './errors.js'
import { sha256Hex } from './hash.js'
import { type Decision, DECISIONS } from './schema/approvals.js'
import { approvalTokens } from './schema/approval-tokens.js'

/** A stored approval token (its hash, never the token). */
export type ApprovalTokenRow = typeof approvalTokens.$inferSelect

/** What `createApprovalTokens` binds each token to. */
export interface CreateApprovalTokensInput {
  approvalId: string
  /** The approval's material hash: a link decides only what the approval showed when it was made. */
  materialHash: string
  /** Who the audit log names as the decider when the link is used. */
  recipient: string
  expiresAt: Date
}

/**
 * Creates one single-use token per decision for an approval. Each token is 32 random bytes
 * (base64url); only its SHA-256 is stored, so the tokens returned here are the only copies.
 */
export async function createApprovalTokens(
  tx: TenantTx,
  input: CreateApprovalTokensInput,
): Promise<Record<Decision, string>> {
  const tokens = Object.fromEntries(
    DECISIONS.map((d) => [d, randomBytes(32).toString('base64url')]),
  ) as Record<Decision, string>
  await tx.db.insert(approvalTokens).values(
    DECISIONS.map((decision) => ({
      tenantId: tx.tenant,
      approvalId: input.approvalId,
      decision,
      tokenHash: sha256Hex(tokens[decision]),
      materialHash: input.materialHash,
      recipient: input.recipient,
      expiresAt: input.expiresAt,
    })),
  )
  return tokens
}

/** A token found by its text: the row, and the tenant it belongs to. */
export type FoundApprovalToken = Pick<
  ApprovalTokenRow,
  | 'id'
  | 'tenantId'
  | 'approvalId'
  | 'decision'
  | 'materialHash'
  | 'recipient'
  | 'expiresAt'
  | 'usedAt'
>

const NO_HASH = Buffer.alloc(32)

/**
 * Finds the token whose SHA-256 matches `token`, in any tenant (an approval link carries no
 * bearer token); null for an unknown or altered token. The lookup is by hash, and the hashes are
 * compared in constant time, so the answer time does not depend on how close a guess is.
 */
export async function findApprovalToken(
  database: Pick<Database, 'db'>,
  token: string,
): Promise<FoundApprovalToken | null> {
  const hash = sha256Hex(token)
  const result = await database.db.execute<{
    tenant_id: string
    id: string
    approval_id: string
    decision: Decision
    token_hash: string
    material_hash: string
    recipient: string
    expires_at: string | Date
    used_at: string | Date | null
  }>(sql`select * from weave_approval_token(${hash})`)
  const row = result.rows[0]
  const stored = row ? Buffer.from(row.token_hash, 'hex') : NO_HASH
  const isMatch =
    stored.length === NO_HASH.length && timingSafeEqual(stored, Buffer.from(hash, 'hex'))
  if (!row || !isMatch) return null
  return {
    id: row.id,
    tenantId: row.tenant_id,
    approvalId: row.approval_id,
    decision: row.decision,
    materialHash: row.material_hash,
    recipient: row.recipient,
    expiresAt: new Date(row.expires_at),
    usedAt: row.used_at === null ? null : new Date(row.used_at),
  }
}

/**
 * Marks a token used: a compare-and-set on `used_at IS NULL` and `expires_at > now()`, so of two
 * racing requests only one consumes it. Call it in the transaction that applies the decision, so
 * a refused decision leaves the token unused.
 * @throws ApprovalLinkError `approval-link-used`, `approval-link-expired` or
 *   `approval-link-not-found` (no such token in this tenant).
 */
export async function consumeApprovalToken(tx: TenantTx, id: string): Promise<ApprovalTokenRow> {
  const [used] = await tx.db
    .update(approvalTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(approvalTokens.tenantId, tx.tenant),
        eq(approvalTokens.id, id),
        isNull(approvalTokens.usedAt),
        gt(approvalTokens.expiresAt, sql`now()`),
      ),
    )
    .returning()
  if (used) return used
  const [row] = await tx.db
    .select()
    .from(approvalTokens)
    .where(and(eq(approvalTokens.tenantId, tx.tenant), eq(approvalTokens.id, id)))
  if (!row) throw new ApprovalLinkError('approval-link-not-found')
  throw new ApprovalLinkError(row.usedAt ? 'approval-link-used' : 'approval-link-expired')
}
