import {
  SYSTEM_ANCHOR_ACTOR,
  anchorAuditHead,
  getAuditAnchor,
  listUnanchoredHeads,
  listUnpublishedAuditAnchors,
  markAuditAnchorPublished,
  withTenant,
  type AuditSigner,
  type Database,
} from '@weave/db'
import type { Logger } from 'pino'

/** How long the anchor webhook may take to answer one anchor. */
export const ANCHOR_WEBHOOK_TIMEOUT_MS = 10_000

const PAGE = 100
// One pass signs and sends at most this many; the next tick goes on.
const MAX_PER_PASS = 10_000

/** What the anchor job needs. */
export interface AuditAnchorDeps {
  database: Database
  log: Pick<Logger, 'info' | 'warn'>
  signer: AuditSigner
  /** Where each anchor is POSTed as JSON; none: anchors are only stored and listed. */
  webhookUrl?: string
  /** Default {@link ANCHOR_WEBHOOK_TIMEOUT_MS}. */
  webhookTimeoutMs?: number
}

/** What one pass did. */
export interface AnchorPassReport {
  /** Chains whose head was signed. */
  anchored: number
  /** Anchors the webhook accepted. */
  published: number
}

/**
 * One pass of the anchor job: signs the head of every tenant's audit chain that grew since its
 * newest anchor, then sends every anchor the webhook has not accepted yet (the scheduled ones and
 * those asked for through `POST /v1/audit/anchors`), oldest first. A webhook failure ends the
 * sending for this pass; the anchors stay unsent and the next pass sends them, in order.
 */
export async function runAnchorPass(deps: AuditAnchorDeps): Promise<AnchorPassReport> {
  const report: AnchorPassReport = { anchored: 0, published: 0 }
  let afterTenant: string | null = null
  while (report.anchored < MAX_PER_PASS) {
    const heads = await listUnanchoredHeads(deps.database, { afterTenant, limit: PAGE })
    for (const head of heads) {
      await withTenant(deps.database, head.tenant, (tx) =>
        anchorAuditHead(tx, deps.signer, SYSTEM_ANCHOR_ACTOR),
      )
      report.anchored += 1
    }
    if (heads.length < PAGE) break
    afterTenant = heads.at(-1)?.tenant ?? null
  }
  if (deps.webhookUrl) report.published = await publishAnchors(deps, deps.webhookUrl)
  return report
}

async function publishAnchors(deps: AuditAnchorDeps, url: string): Promise<number> {
  let published = 0
  while (published < MAX_PER_PASS) {
    const pending = await listUnpublishedAuditAnchors(deps.database, { limit: PAGE })
    for (const { tenant, id } of pending) {
      const anchor = await withTenant(deps.database, tenant, (tx) => getAuditAnchor(tx, id))
      if (!anchor) continue
      const { publishedAt: _unsent, ...body } = anchor
      const failure = await post(url, body, deps.webhookTimeoutMs ?? ANCHOR_WEBHOOK_TIMEOUT_MS)
      if (failure) {
        deps.log.warn(
          { anchorId: id, tenant, reason: failure, target: new URL(url).host },
          'audit anchor not accepted by the anchor webhook; it is sent again at the next pass',
        )
        return published
      }
      await withTenant(deps.database, tenant, (tx) => markAuditAnchorPublished(tx, id))
      published += 1
    }
    if (pending.length < PAGE) break
  }
  return published
}

/** POSTs the anchor; undefined when the receiver answered 2xx, else why not. */
async function post(url: string, body: object, timeoutMs: number): Promise<string | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'weave-audit-anchor' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    })
    await response.body?.cancel()
    return response.ok ? undefined : `status ${response.status}`
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
}
