import { z } from 'zod'
import { FilterTime, PageQuery, Text, Timestamp, pageOf } from './common.js'

/** One event of the tenant's hash-chained audit log. */
export const AuditEventView = z
  .object({
    id: z.uuid(),
    seq: z.int(),
    at: Timestamp,
    tenant: z.string(),
    actor: z.string(),
    action: z.string(),
    target: z.object({ kind: z.string(), id: z.string() }),
    requestId: z.string().nullable(),
    ip: z.string().nullable(),
    details: z.unknown(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({
    id: 'AuditEvent',
    examples: [
      {
        id: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
        seq: 12,
        at: '2025-01-31T09:30:00.000Z',
        tenant: 'acme',
        actor: 'alice',
        action: 'run.started',
        target: { kind: 'run', id: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11' },
        requestId: 'req-42',
        ip: '203.0.113.7',
        details: { graph: 'refunds', version: 2 },
        prevHash: '1f0e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
        hash: '2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1',
      },
    ],
  })
/** One audit event. */
export type AuditEventView = z.infer<typeof AuditEventView>

/** `GET /v1/audit`. */
export const AuditPage = pageOf(AuditEventView).meta({ id: 'AuditPage' })
/** `GET /v1/audit`. */
export type AuditPage = z.infer<typeof AuditPage>

/** `GET /v1/audit` query; `since` is inclusive, `until` exclusive. */
export const ListAuditQuery = PageQuery.extend({
  action: Text()
    .max(100)
    .optional()
    .meta({ examples: ['approval.decided'] }),
  actor: Text().max(256).optional(),
  targetId: Text().max(256).optional(),
  since: FilterTime().optional(),
  until: FilterTime().optional(),
})

/** `GET /v1/audit/verify`. */
export const AuditVerification = z
  .object({
    ok: z.boolean(),
    checked: z.int().meta({ description: 'Events read, up to and including a bad one' }),
    firstBadId: z.uuid().optional().meta({ description: 'The first event that breaks the chain' }),
  })
  .meta({ id: 'AuditVerification', examples: [{ ok: true, checked: 42 }] })
/** `GET /v1/audit/verify`. */
export type AuditVerification = z.infer<typeof AuditVerification>
