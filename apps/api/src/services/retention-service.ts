import {
  KEEP_EVERYTHING,
  getRetentionPolicy,
  putRetentionPolicy,
  withTenant,
  type Database,
  type StoredRetentionPolicy,
} from '@weave/db'
import type { z } from 'zod'
import type { Principal } from '../auth/principal.js'
import type { RetentionPolicyBody, RetentionPolicyView } from '../schemas/retention.js'
import { auditRequest } from './audit-request.js'
import type { AuditContext } from './deps.js'

/** The tenant's retention policy as the API offers it. */
export interface RetentionService {
  /** The tenant's policy; keep-everything when it never set one. */
  get(tenant: string): Promise<RetentionPolicyView>
  /** Sets the tenant's policy and writes `retention.updated` to the audit log. */
  put(
    tenant: string,
    body: z.infer<typeof RetentionPolicyBody>,
    by: { principal: Pick<Principal, 'subject'>; context: AuditContext },
  ): Promise<RetentionPolicyView>
}

/** Builds the {@link RetentionService}. */
export function createRetentionService(deps: { database: Database }): RetentionService {
  const { database } = deps
  return {
    async get(tenant) {
      return toView(await withTenant(database, tenant, (tx) => getRetentionPolicy(tx)))
    },
    async put(tenant, body, by) {
      const { after } = await withTenant(database, tenant, async (tx) => {
        const changed = await putRetentionPolicy(tx, body, by.principal.subject)
        await auditRequest(tx, by, {
          action: 'retention.updated',
          target: { kind: 'retention', id: tenant },
          details: {
            checkpoints: body.checkpoints,
            runDays: body.runDays,
            before: changed.before
              ? { checkpoints: changed.before.checkpoints, runDays: changed.before.runDays }
              : null,
          },
        })
        return changed
      })
      return toView(after)
    },
  }
}

function toView(policy: StoredRetentionPolicy | null): RetentionPolicyView {
  if (!policy) return { ...KEEP_EVERYTHING, updatedBy: null, updatedAt: null }
  return {
    checkpoints: policy.checkpoints,
    runDays: policy.runDays,
    updatedBy: policy.updatedBy,
    updatedAt: policy.updatedAt.toISOString(),
  }
}
