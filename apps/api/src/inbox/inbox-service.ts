import {
  approverRefusal,
  findApprovalToken,
  getApproval,
  getRun,
  listApprovals,
  withTenant,
  type Decision,
} from '@weave/db'
import type { Json } from '@weave/kernel'
import type { Principal } from '../auth/principal.js'
import { NotFoundError } from '../http/app-errors.js'
import type { ApprovalView } from '../schemas/approvals.js'
import type { CheckpointInfo } from '../schemas/runs.js'
import { toApprovalView } from '../services/approval-service.js'
import type { ServiceDeps } from '../services/deps.js'
import type { RunService } from '../services/run-service.js'

/** The run an approval belongs to, as the inbox shows it. */
export interface InboxRun {
  id: string
  graph: string
  version: number
  status: string
  createdBy: string
  createdAt: string
}

/** Everything one approval's page shows. */
export interface ApprovalPageModel {
  approval: ApprovalView
  /** JSON Schema of a decision's input (an agent's call: `{ arguments }` of the tool's schema). */
  inputSchema: Json | null
  run: InboxRun
  /** The run's steps so far, oldest first. */
  path: CheckpointInfo[]
}

/** A pending approval in the inbox list. */
export interface InboxItem {
  approval: ApprovalView
  run: InboxRun
}

/** The list's filters. */
export interface InboxFilters {
  graph?: string | undefined
  runId?: string | undefined
  /** Only approvals the caller may decide and has not decided yet. */
  isMine?: boolean | undefined
}

/** What an approval link opens, as its page shows it; never the token. */
export interface LinkedApproval {
  tenant: string
  /** The decision a webhook's link is bound to; null for a page link (its recipient picks). */
  decision: Decision | null
  recipient: string
  materialHash: string
  expiresAt: Date
  usedAt: Date | null
  page: ApprovalPageModel
}

/** The inbox's reads: pending approvals with their runs, one approval's page, a link's page. */
export interface InboxService {
  /**
   * The tenant's pending approvals, newest first, at most `limit` after filtering.
   * @throws InvalidCursorError never (the inbox pages internally)
   */
  pending(
    tenant: string,
    principal: Pick<Principal, 'subject' | 'scopes'>,
    filters: InboxFilters,
    limit: number,
  ): Promise<{ items: InboxItem[]; isTruncated: boolean }>
  /** One approval with its run and path. @throws {NotFoundError} */
  approvalPage(tenant: string, approvalId: string): Promise<ApprovalPageModel>
  /** What an approval link opens; null for an unknown or altered token. */
  linked(token: string): Promise<LinkedApproval | null>
}

// The list reads at most this many pending approvals per request (four pages of the maximum).
const SCAN_PAGES = 4
const PAGE_SIZE = 200

/** Builds the {@link InboxService} over the database and the run service (history). */
export function createInboxService(
  deps: Pick<ServiceDeps, 'database'>,
  runs: Pick<RunService, 'history'>,
): InboxService {
  const { database } = deps

  async function approvalPage(tenant: string, approvalId: string): Promise<ApprovalPageModel> {
    const found = await withTenant(database, tenant, async (tx) => {
      const approval = await getApproval(tx, approvalId)
      const run = approval ? await getRun(tx, approval.runId) : null
      return approval && run ? { approval, run } : null
    })
    if (!found)
      throw new NotFoundError(`No approval ${approvalId}.`, { problem: 'approval-not-found' })
    const history = await runs.history(tenant, found.run.id)
    return {
      approval: toApprovalView(found.approval),
      inputSchema: (found.approval.inputSchema ?? null) as Json | null,
      run: inboxRun(found.run),
      path: history.items,
    }
  }

  return {
    approvalPage,

    async pending(tenant, principal, filters, limit) {
      return withTenant(database, tenant, async (tx) => {
        const items: InboxItem[] = []
        const runsById = new Map<string, InboxRun | null>()
        let cursor: string | undefined
        for (let page = 0; page < SCAN_PAGES; page++) {
          const found = await listApprovals(tx, {
            status: 'pending',
            limit: PAGE_SIZE,
            ...(filters.runId ? { runId: filters.runId } : {}),
            ...(cursor ? { cursor } : {}),
          })
          for (const approval of found.items) {
            if (!runsById.has(approval.runId)) {
              const row = await getRun(tx, approval.runId)
              runsById.set(approval.runId, row ? inboxRun(row) : null)
            }
            const run = runsById.get(approval.runId)
            if (!run || (filters.graph && run.graph !== filters.graph)) continue
            if (filters.isMine) {
              const isAllowed =
                approverRefusal(approval, run.createdBy, principal.subject, [
                  ...principal.scopes,
                ]) === null
              const hasDecided = approval.decisions.some((d) => d.subject === principal.subject)
              if (!isAllowed || hasDecided) continue
            }
            items.push({ approval: toApprovalView(approval), run })
            if (items.length > limit) return { items: items.slice(0, limit), isTruncated: true }
          }
          if (!found.nextCursor) return { items, isTruncated: false }
          cursor = found.nextCursor
        }
        return { items, isTruncated: true }
      })
    },

    async linked(token) {
      const found = await findApprovalToken(database, token)
      if (!found) return null
      return {
        tenant: found.tenantId,
        decision: found.decision,
        recipient: found.recipient,
        materialHash: found.materialHash,
        expiresAt: found.expiresAt,
        usedAt: found.usedAt,
        page: await approvalPage(found.tenantId, found.approvalId),
      }
    },
  }
}

function inboxRun(row: {
  id: string
  graphName: string
  graphVersion: number
  status: string
  createdBy: string
  createdAt: Date
}): InboxRun {
  return {
    id: row.id,
    graph: row.graphName,
    version: row.graphVersion,
    status: row.status,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  }
}
