import { z } from 'zod'

/** Every scope a Weave token can carry (docs/http-api.md, Authentication and tenants). */
export const Scope = z.enum([
  'graphs:read',
  'graphs:write',
  'runs:read',
  'runs:write',
  'approvals:read',
  'approvals:decide',
  // Issues page links that decide as the named approver they are addressed to.
  'approvals:link',
  'audit:read',
  // Signs the head of the tenant's audit chain on demand: a write, so reading is not enough.
  'audit:anchor',
  'webhooks:manage',
  // Sets the tenant's retention policy: how long finished runs and their history are kept.
  'retention:manage',
])
/** A scope a route can require. */
export type Scope = z.infer<typeof Scope>

/** A tenant id: 1-100 characters of A-Z a-z 0-9 `.` `_` `-`. */
export const TenantId = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, {
  error: 'must be 1-100 characters of A-Z a-z 0-9 . _ -',
})

/** Who is calling: established only from a verified token. */
export interface Principal {
  /** The tenant every query of this request is scoped to. */
  tenant: string
  /** The token's `sub`; the actor in the audit log. */
  subject: string
  /** The token's scopes. */
  scopes: ReadonlySet<string>
  /** The token's `jti`, when it has one. */
  tokenId?: string
  /** When the token expires (its `exp`): a stream it opened ends then. */
  expiresAt?: Date
}
