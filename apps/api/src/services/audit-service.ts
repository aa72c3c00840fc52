import { listAudit, verifyAudit, withTenant } from '@weave/db'
import type { AuditPage, AuditVerification, ListAuditQuery } from '../schemas/audit.js'
import { createPublicKey, type KeyObject } from 'node:crypto'
import type { z } from 'zod'
import type { ServiceDeps } from './deps.js'

/** The tenant's audit log as the API offers it. */
export interface AuditService {
  /** Audit events, newest first, filtered. @throws InvalidCursorError (`invalid-cursor`) */
  list(tenant: string, query: z.infer<typeof ListAuditQuery>): Promise<AuditPage>
  /**
   * Walks the tenant's hash chain, then checks it against its newest anchor when this server has
   * the signing key, and names the first seq that is wrong and how.
   */
  verify(tenant: string): Promise<AuditVerification>
}

/** Builds the {@link AuditService}. */
export function createAuditService(
  { database }: ServiceDeps,
  options: { signingKey?: KeyObject | undefined } = {},
): AuditService {
  const publicKey = options.signingKey ? createPublicKey(options.signingKey) : undefined
  return {
    async list(tenant, { since, until, ...query }) {
      return withTenant(database, tenant, (tx) =>
        listAudit(tx, {
          ...query,
          ...(since === undefined ? {} : { since: new Date(since) }),
          ...(until === undefined ? {} : { until: new Date(until) }),
        }),
      )
    },
    async verify(tenant) {
      return withTenant(database, tenant, (tx) => verifyAudit(tx, publicKey ? { publicKey } : {}))
    },
  }
}
