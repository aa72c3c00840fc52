import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import { RetentionPolicyBody, RetentionPolicyView } from '../schemas/retention.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['retention']

/**
 * `/v1/retention`: the tenant's retention policy for finished runs' checkpoint history and for
 * finished runs themselves, applied by the worker's retention job.
 */
export const retentionRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { retention }) => {
  app.get(
    '/v1/retention',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'getRetentionPolicy',
        summary: "Get the tenant's retention policy",
        description:
          'What the retention job keeps of finished runs where their graph sets no `retention` ' +
          'of its own. A tenant that never set a policy keeps everything.',
        tags: TAGS,
        response: { 200: RetentionPolicyView, ...problemResponses(401, 403, 429) },
      },
    },
    async (request) => retention.get(request.tenant),
  )

  app.put(
    '/v1/retention',
    {
      onRequest: app.requireScope('retention:manage'),
      schema: {
        operationId: 'putRetentionPolicy',
        summary: "Set the tenant's retention policy",
        description:
          'Sets how much checkpoint history a finished run keeps and how many days after it ' +
          'finished a run is deleted with its checkpoints, events and webhook deliveries. A ' +
          "graph's own `retention` overrides it field by field. It applies to runs that finish " +
          'from now on; the audit log is never pruned. Recorded in the audit log as ' +
          '`retention.updated`.',
        tags: TAGS,
        body: RetentionPolicyBody,
        response: {
          200: RetentionPolicyView,
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request body is invalid: 1 problem.',
              errors: [{ path: '/body/runDays', message: 'Too small: expected number to be >=1' }],
            },
            401,
            403,
            413,
            415,
            429,
          ),
        },
      },
    },
    async (request) =>
      retention.put(request.tenant, request.body, {
        principal: request.principal,
        context: auditContext(request),
      }),
  )
}
