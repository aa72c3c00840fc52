import { z } from 'zod'
import { AuditEventView } from './audit.js'
import { PageQuery, Timestamp, pageOf } from './common.js'

const HASH_EXAMPLE = '2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1'

/** A signed head of the tenant's audit chain. */
export const AuditAnchorView = z
  .object({
    id: z.uuid(),
    tenant: z.string(),
    seq: z.int().meta({ description: 'The chain had this many events (0: none)' }),
    hash: z.string().meta({ description: 'The hash of event `seq` (the genesis hash for 0)' }),
    at: Timestamp.meta({ description: 'When it was signed' }),
    keyId: z.string().meta({ description: 'The signing key, as `GET /v1/audit/keys` names it' }),
    signature: z.string().meta({
      description:
        'Ed25519 over the canonical JSON of `{type: "weave.audit-anchor.v1", tenant, seq, hash, ' +
        'at}`, base64url',
    }),
    createdBy: z.string().meta({ description: '`system` for a scheduled anchor' }),
    publishedAt: Timestamp.nullable().meta({
      description: 'When the anchor webhook accepted it; null while not sent',
    }),
  })
  .meta({
    id: 'AuditAnchor',
    examples: [
      {
        id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
        tenant: 'acme',
        seq: 12,
        hash: HASH_EXAMPLE,
        at: '2025-01-31T10:00:00.000Z',
        keyId: '9f86d081884c7d65',
        signature:
          'q1xBvHFVQcLT2Nf8m6uYj2rB0d9m1Kx5QyUo6dJm0vGxMxJ3o6Qx5Bz8pQ7sV2wF1nR4tY6uI8oP0aS2dF4gHA',
        createdBy: 'system',
        publishedAt: '2025-01-31T10:00:01.000Z',
      },
    ],
  })
/** A signed head of the tenant's audit chain. */
export type AuditAnchorView = z.infer<typeof AuditAnchorView>

/** `GET /v1/audit/anchors`. */
export const AuditAnchorPage = pageOf(AuditAnchorView).meta({ id: 'AuditAnchorPage' })
/** `GET /v1/audit/anchors`. */
export type AuditAnchorPage = z.infer<typeof AuditAnchorPage>

/** `GET /v1/audit/anchors` query. */
export const ListAuditAnchorsQuery = PageQuery

/** An Ed25519 public key anchors verify under. */
export const AuditPublicKeyView = z
  .object({
    keyId: z.string(),
    algorithm: z.literal('Ed25519'),
    publicKey: z.string().meta({ description: 'The raw 32-byte key, base64url' }),
    pem: z.string().meta({ description: 'The same key as an SPKI PEM' }),
  })
  .meta({ id: 'AuditPublicKey' })

/** `GET /v1/audit/keys`. */
export const AuditKeys = z
  .object({
    keys: z.array(AuditPublicKeyView).meta({
      description: 'The key anchors are signed with; empty when this server signs none',
    }),
  })
  .meta({
    id: 'AuditKeys',
    examples: [
      {
        keys: [
          {
            keyId: '9f86d081884c7d65',
            algorithm: 'Ed25519',
            publicKey: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
            pem: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n',
          },
        ],
      },
    ],
  })
/** `GET /v1/audit/keys`. */
export type AuditKeys = z.infer<typeof AuditKeys>

/** One line of `GET /v1/audit/export`. */
export const AuditExportLine = z
  .union([
    AuditAnchorView.omit({ publishedAt: true }).extend({ type: z.literal('audit-anchor') }),
    AuditEventView.extend({ type: z.literal('audit-event') }),
  ])
  .meta({
    id: 'AuditExportLine',
    description:
      'A line of the export: first the newest anchor (when there is one), then every event in ' +
      'seq order',
  })
