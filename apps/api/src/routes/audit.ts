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
        tags: TAGS,
        querystring: ListAuditQuery,
        response: { 200: AuditPage, ...problemResponses(400, 401, 403, 429) },
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
        tags: TAGS,
        response: { 200: AuditVerification, ...problemResponses(401, 403, 429) },
      },
    },
    async (request) => audit.verify(request.tenant),
  )
}
