import { Readable } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import {
  AuditAnchorPage,
  AuditAnchorView,
  AuditExportLine,
  AuditKeys,
  ListAuditAnchorsQuery,
} from '../schemas/audit-anchors.js'
import type { ApiServices } from '../services/api-services.js'

const TAGS = ['audit']

/**
 * `/v1/audit/keys`, `/v1/audit/anchors` and `/v1/audit/export`: the signed heads of the tenant's
 * audit chain, the key they verify under, and the chain with its newest anchor for offline
 * verification (`weave audit verify-export`).
 */
export const auditAnchorRoutes: FastifyPluginAsyncZod<ApiServices> = async (
  app,
  { auditAnchors },
) => {
  app.get(
    '/v1/audit/keys',
    {
      onRequest: app.requireScope('audit:read'),
      schema: {
        operationId: 'listAuditKeys',
        summary: 'Get the public key audit anchors are signed with',
        description:
          "The Ed25519 public key (raw and PEM) that signs this server's audit anchors, to " +
          'verify an anchor or an export without trusting the server; empty when it signs none.',
        tags: TAGS,
        response: { 200: AuditKeys, ...problemResponses(401, 403, 429) },
      },
    },
    async () => auditAnchors.keys(),
  )

  app.get(
    '/v1/audit/anchors',
    {
      onRequest: app.requireScope('audit:read'),
      schema: {
        operationId: 'listAuditAnchors',
        summary: "List the signed heads of the tenant's audit chain, newest first",
        description:
          "Each anchor signs the chain's length and head hash at a moment, with the key of " +
          '`GET /v1/audit/keys`, and says when the anchor webhook accepted it. Paged with ' +
          '`limit` and `cursor`.',
        tags: TAGS,
        querystring: ListAuditAnchorsQuery,
        response: { 200: AuditAnchorPage, ...problemResponses(400, 401, 403, 429) },
      },
    },
    async (request) => auditAnchors.list(request.tenant, request.query),
  )

  app.post(
    '/v1/audit/anchors',
    {
      onRequest: app.requireScope('audit:anchor'),
      schema: {
        operationId: 'createAuditAnchor',
        summary: "Sign the head of the tenant's audit chain now",
        description:
          'Stores a signed anchor of the current head (seq 0 for an empty chain); the worker ' +
          'sends it to the anchor webhook at its next pass. Storing an anchor is a write, so it ' +
          'needs `audit:anchor`: `audit:read` alone is answered 403. 409 when the chain is ' +
          'shorter than its newest anchor: events it signed were removed.',
        tags: TAGS,
        response: { 201: AuditAnchorView, ...problemResponses(401, 403, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const anchor = await auditAnchors.anchor(request.tenant, request.principal.subject)
      return reply.code(201).send(anchor)
    },
  )

  app.get(
    '/v1/audit/export',
    {
      onRequest: app.requireScope('audit:read'),
      schema: {
        operationId: 'exportAuditLog',
        summary: "Export the tenant's audit chain with its newest anchor, as NDJSON",
        description:
          'One JSON object a line: the newest anchor first (`type: "audit-anchor"`, when there ' +
          'is one), then every event up to the head in seq order (`type: "audit-event"`). ' +
          '`weave audit verify-export <file> --public-key <key>` checks it offline.',
        tags: TAGS,
        response: {
          200: {
            description: 'The export: one `AuditExportLine` a line',
            content: { 'application/x-ndjson': { schema: AuditExportLine } },
          },
          ...problemResponses(401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const stream = Readable.from(auditAnchors.exportLines(request.tenant))
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${request.tenant}.ndjson"`)
        .send(stream)
    },
  )
}
