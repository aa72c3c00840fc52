import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database, TenantTx } from '../client.js'
import {
  ApprovalLinkError,
  DecisionConflictError,
  DecisionForbiddenError,
  NotFoundError,
} from '../errors.js'
import { sha256Hex } from '../hash.js'
import { type Decision, DECISIONS } from '../schema/approvals.js'
import { approvalTokens } from '../schema/approval-tokens.js'
import { decryptSecret, encryptSecret } from '../secret-box.js'
import { isUuid } from '../uuid.js'
import { getApproval } from './approval-queries.js'
import { lockRunOfApproval } from './approval-rows.js'
import { approverRefusal } from './approver-rule.js'

/** A stored approval token (its hash and ciphertext, never the token in clear). */
export type ApprovalTokenRow = typeof approvalTokens.$inferSelect

/** What `approvalLinkTokens` binds each token to. */
export interface ApprovalLinkTokensInput {
  approvalId: string
  /** The approval's material hash: a link decides only what the approval showed when it was made. */
  materialHash: string
  /** The webhook whose deliveries carry the links; the audit log names it as the decider. */
  webhookId: string
  expiresAt: Date
  /** WEAVE_SECRETS_KEY: the tokens are kept encrypted under it. */
  secretsKey: Buffer
}

/** The recipient an approval link sent to a webhook decides as. */
export function webhookRecipient(webhookId: string): string {
  return `webhook:${webhookId}`
}

/**
 * The approve and reject tokens of an approval's links for one webhook: minted (32 random bytes
 * each, base64url) the first time that webhook is sent the approval, and read back (decrypted)
 * for every later attempt, so each delivery of it carries the same links. Only the SHA-256 of a
 * token is looked up, and its text is stored only encrypted, bound to the tenant and row.
 */
export async function approvalLinkTokens(
  tx: TenantTx,
  input: ApprovalLinkTokensInput,
): Promise<Record<Decision, string>> {
  const rows = DECISIONS.map((decision) => {
    const id = randomUUID()
    const token = randomBytes(32).toString('base64url')
    return {
      id,
      tenantId: tx.tenant,
      approvalId: input.approvalId,
      decision,
      tokenHash: sha256Hex(token),
      tokenCiphertext: encryptSecret(input.secretsKey, token, tokenContext(tx.tenant, id)),
      materialHash: input.materialHash,
      recipient: webhookRecipient(input.webhookId),
      webhookId: input.webhookId,
      expiresAt: input.expiresAt,
    }
  })
  await tx.db
    .insert(approvalTokens)
    .values(rows)
    .onConflictDoNothing({
      target: [approvalTokens.approvalId, approvalTokens.webhookId, approvalTokens.decision],
    })
  const stored = await tx.db
    .select()
    .from(approvalTokens)
    .where(
      and(
        eq(approvalTokens.tenantId, tx.tenant),
        eq(approvalTokens.approvalId, input.approvalId),
        eq(approvalTokens.webhookId, input.webhookId),
      ),
    )
  const tokens: Partial<Record<Decision, string>> = {}
  for (const row of stored) {
    if (row.tokenCiphertext === null || row.decision === null) continue
    tokens[row.decision] = decryptSecret(
      input.secretsKey,
      row.tokenCiphertext,
      tokenContext(tx.tenant, row.id),
    )
  }
  if (tokens.approve === undefined || tokens.reject === undefined) {
    throw new Error(
      `approval ${input.approvalId} has no link tokens for webhook ${input.webhookId}`,
    )
  }
  return tokens as Record<Decision, string>
}

function tokenContext(tenant: string, id: string): string {
  return `approval-token:${tenant}:${id}`
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
    decision: Decision | null
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

/** What `issueApprovalPageLink` binds a page link to. */
export interface ApprovalPageLinkInput {
  approvalId: string
  /** The subject the link decides as: a named approver, never one the approval's rules refuse. */
  recipient: string
  /** Who asks for the link: under separation of duties, never the run's starter. */
  issuer: string
  /** When the link stops working; never later than the approval's own expiry. */
  expiresAt: Date
}

/** A page link's token (returned once, never stored in clear) and when it expires. */
export interface ApprovalPageLink {
  token: string
  tokenId: string
  expiresAt: Date
}

/**
 * Issues a single-use page link (`/inbox/a/{token}`) to `recipient` for a pending approval: its
 * recipient sees the approval and picks the decision there, deciding as that subject. The link is
 * bound to the material the approval shows now. A link carries no scopes, so the recipient must
 * pass the approver rule as a subject (when the approval names subjects, one of them; one
 * restricted to scopes alone admits no link). Whoever issues a link can open it, so under
 * separation of duties the run's starter can neither receive nor issue one, and an approval
 * needing several people admits links only to the subjects it names: a made-up recipient can
 * never count towards its quorum. Only the token's SHA-256 is stored.
 * @throws NotFoundError `approval-not-found`.
 * @throws DecisionConflictError `approval-settled` or `approval-expired`.
 * @throws DecisionForbiddenError `separation-of-duties` or `not-an-approver`.
 */
export async function issueApprovalPageLink(
  tx: TenantTx,
  input: ApprovalPageLinkInput,
): Promise<ApprovalPageLink> {
  const run = isUuid(input.approvalId) ? await lockRunOfApproval(tx, input.approvalId) : null
  const approval = run ? await getApproval(tx, input.approvalId) : null
  if (!run || !approval) throw new NotFoundError('approval', input.approvalId)
  if (approval.status !== 'pending') {
    throw new DecisionConflictError('approval-settled', `approval is ${approval.status}`)
  }
  const now = Date.now()
  if (approval.expiresAt !== null && approval.expiresAt.getTime() <= now) {
    throw new DecisionConflictError('approval-expired', 'approval has expired')
  }
  const named = approval.approvers.subjects ?? []
  const refusal =
    approval.separationOfDuties && input.issuer === run.createdBy
      ? 'separation-of-duties'
      : approval.required > 1 && !named.includes(input.recipient)
        ? 'not-an-approver'
        : approverRefusal(approval, run.createdBy, input.recipient, [])
  if (refusal !== null) {
    throw new DecisionForbiddenError(
      refusal,
      refusal === 'separation-of-duties'
        ? 'the subject who started the run cannot decide its approval, nor issue a link to it'
        : `${input.recipient} is not an approver this link may be issued to`,
    )
  }
  const expiresAt =
    approval.expiresAt !== null && approval.expiresAt < input.expiresAt
      ? approval.expiresAt
      : input.expiresAt
  const token = randomBytes(32).toString('base64url')
  const tokenId = randomUUID()
  await tx.db.insert(approvalTokens).values({
    id: tokenId,
    tenantId: tx.tenant,
    approvalId: approval.id,
    decision: null,
    tokenHash: sha256Hex(token),
    materialHash: approval.materialHash,
    recipient: input.recipient,
    expiresAt,
  })
  return { token, tokenId, expiresAt }
}
