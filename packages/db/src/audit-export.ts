import type { KeyObject } from 'node:crypto'
import { z } from 'zod'
import type { AuditEvent } from './audit-chain.js'
import type { SignedAnchor } from './audit-signing.js'
import { AuditChainVerifier, anchorProblem, type AuditVerification } from './audit-verify.js'

const Hash = z.string().regex(/^[0-9a-f]{64}$/)

const ExportedAnchor = z.object({
  type: z.literal('audit-anchor'),
  tenant: z.string().min(1),
  seq: z.int().nonnegative(),
  hash: Hash,
  at: z.string(),
  keyId: z.string(),
  signature: z.string(),
})

const ExportedEvent = z.object({
  type: z.literal('audit-event'),
  id: z.string(),
  seq: z.int(),
  at: z.string(),
  tenant: z.string().min(1),
  actor: z.string(),
  action: z.string(),
  target: z.object({ kind: z.string(), id: z.string() }),
  requestId: z.string().nullable(),
  ip: z.string().nullable(),
  details: z.json(),
  prevHash: Hash,
  hash: Hash,
})

const ExportLine = z.discriminatedUnion('type', [ExportedAnchor, ExportedEvent])

/** An export line that is not an anchor or an event of `GET /v1/audit/export`. */
export class AuditExportFormatError extends Error {
  override name = 'AuditExportFormatError'
}

/** Parses an anchor as the anchor webhook received it or as a line of an export. */
export function parseSignedAnchor(value: unknown): SignedAnchor {
  const parsed = ExportedAnchor.omit({ type: true }).safeParse(value)
  if (!parsed.success) {
    throw new AuditExportFormatError(`not an audit anchor: ${z.prettifyError(parsed.error)}`)
  }
  const { tenant, seq, hash, at, keyId, signature } = parsed.data
  return { tenant, seq, hash, at, keyId, signature }
}

/** Options of {@link verifyAuditExport}. */
export interface VerifyExportOptions {
  /** The public key of `GET /v1/audit/keys`: the only thing trusted. */
  publicKey: KeyObject
  /** Anchors kept elsewhere (the anchor webhook's copies), checked like the export's own. */
  anchors?: SignedAnchor[]
}

/**
 * Verifies an export of `GET /v1/audit/export` offline: every anchor in it or given must verify
 * under the public key and name the export's tenant, and the chain must be intact and reach the
 * newest of them with the hash it signed. Nothing of the server is trusted but the key.
 * @throws AuditExportFormatError naming the first line that is not an anchor or an event
 */
export async function verifyAuditExport(
  lines: AsyncIterable<string> | Iterable<string>,
  options: VerifyExportOptions,
): Promise<AuditVerification & { tenant: string | null }> {
  const anchors: SignedAnchor[] = [...(options.anchors ?? [])]
  const events: AuditEvent[] = []
  let lineNumber = 0
  for await (const line of lines) {
    lineNumber += 1
    if (line.trim() === '') continue
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      throw new AuditExportFormatError(`line ${lineNumber}: not JSON`)
    }
    const parsed = ExportLine.safeParse(json)
    if (!parsed.success) {
      throw new AuditExportFormatError(
        `line ${lineNumber}: not an audit anchor or event: ${z.prettifyError(parsed.error)}`,
      )
    }
    const { type: _type, ...item } = parsed.data
    if (parsed.data.type === 'audit-anchor') anchors.push(item as SignedAnchor)
    else events.push(item as AuditEvent)
  }
  const tenant = events[0]?.tenant ?? anchors[0]?.tenant ?? null
  const foreign = events.find((event) => event.tenant !== tenant)
  if (foreign) {
    throw new AuditExportFormatError(`event ${foreign.seq} belongs to another tenant`)
  }
  let newest: SignedAnchor | null = null
  for (const anchor of anchors) {
    const problem = anchorProblem(anchor, tenant ?? anchor.tenant, options.publicKey)
    if (problem) return { ...problem, tenant }
    if (!newest || anchor.seq > newest.seq) newest = anchor
  }
  const byHash = new Map(events.map((event) => [event.hash, event]))
  const verifier = new AuditChainVerifier(newest, (hash) => Promise.resolve(byHash.get(hash)))
  for (const event of events) {
    await verifier.push(event)
    if (verifier.failed) break
  }
  return { ...verifier.result(), tenant }
}
