import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import { AuditPage, AuditVerification, ListAuditQuery } from '../schemas/audit.js'
import type { ApiServices } from '../services/api-services.js'

const TAGS = ['audit']

/** `/v1/audit`: read and verify the tenant's hash-chained audit log. */
export const auditRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { audit }) => {
  app.get(
    '/v1/audit',
    {
      onRequest: app.requireScope('audit:read'),
      schema: {
        operationId: 'listAuditEvents',
        summary: "List the tenant's audit events, newest first",
        description:
          'Every change made through the API (and by the workers on its behalf) with its actor, ' +
          'target, request id and client IP, newest first; filter by `action`, `actor`, ' +
          '`targetId` and a time range (`since` inclusive, `until` exclusive). Paged with ' +
          '`limit` and `cursor`.',
        tags: TAGS,
        querystring: ListAuditQuery,
        response: {
          200: AuditPage,
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request query is invalid: 1 problem.',
              errors: [{ path: '/query/since', message: 'Invalid ISO datetime' }],
            },
            'invalid-cursor',
            401,
            403,
            429,
          ),
        },
      },
    },
    async (request) => audit.list(request.tenant, request.query),
  )

  app.get(
    '/v1/audit/verify',
    {
      onRequest: app.requireScope('audit:read'),
      schema: {
        operationId: 'verifyAuditLog',
        summary: "Verify the tenant's audit hash chain",
        description:
          "Recomputes each event's hash from its content and the previous event's hash, oldest " +
          'first: `ok: false` with `firstBadId` names the first event that was changed, removed ' +
          'or inserted out of band.',
        tags: TAGS,
        response: { 200: AuditVerification, ...problemResponses(401, 403, 429) },
      },
    },
    async (request) => audit.verify(request.tenant),
  )
}
