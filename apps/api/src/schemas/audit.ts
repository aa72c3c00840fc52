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
    anchor: z
      .object({ seq: z.int(), hash: z.string(), at: Timestamp, keyId: z.string() })
      .nullable()
      .meta({
        description:
          'The newest anchor (highest seq signed) the chain was checked against; null without one',
      }),
    problem: z
      .enum(['truncated', 'gap', 'edited', 'reordered', 'anchor-invalid'])
      .optional()
      .meta({
        description:
          "`truncated`: the chain ends before the anchor's seq; `gap`: an event in the middle " +
          'is missing; `edited`: an event was changed (or rewritten with a recomputed hash); ' +
          "`reordered`: an intact event sits at another seq; `anchor-invalid`: the anchor's " +
          'signature does not verify',
      }),
    firstBadSeq: z.int().optional().meta({
      description: 'The first wrong seq; for a gap or a truncation, the first missing one',
    }),
    firstBadId: z.uuid().optional().meta({ description: 'The event at `firstBadSeq`, if any' }),
  })
  .meta({
    id: 'AuditVerification',
    examples: [
      {
        ok: true,
        checked: 42,
        anchor: {
          seq: 40,
          hash: '2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1',
          at: '2025-01-31T10:00:00.000Z',
          keyId: '9f86d081884c7d65',
        },
      },
      {
        ok: false,
        checked: 38,
        anchor: {
          seq: 40,
          hash: '2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1',
          at: '2025-01-31T10:00:00.000Z',
          keyId: '9f86d081884c7d65',
        },
        problem: 'truncated',
        firstBadSeq: 39,
      },
    ],
  })
/** `GET /v1/audit/verify`. */
export type AuditVerification = z.infer<typeof AuditVerification>
