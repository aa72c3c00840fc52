import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import {
  ApprovalHookBody,
  ApprovalHookParams,
  ApprovalHookResult,
} from '../schemas/approval-hooks.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

/** `POST /v1/approval-hooks/{token}`: decide an approval with a single-use link, no bearer token. */
export const approvalHookRoutes: FastifyPluginAsyncZod<ApiServices> = async (
  app,
  { approvalHooks },
) => {
  app.post(
    '/v1/approval-hooks/:token',
    {
      schema: {
        operationId: 'useApprovalLink',
        summary: 'Apply the decision of an approveUrl or rejectUrl (single use)',
        description:
          'The token is the credential: no bearer token. It decides as its recipient, under the ' +
          "approval's rules; the body may be omitted. 404: unknown or altered token; 409: link " +
          'already used or approval already settled; 410: link expired. A refused request ' +
          'changes nothing.',
        tags: ['approvals'],
        security: [],
        params: ApprovalHookParams,
        body: ApprovalHookBody.nullish(),
        response: {
          200: ApprovalHookResult,
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request body is invalid: 1 problem.',
              errors: [
                {
                  path: '/body/comment',
                  message: 'Too big: expected string to have <=2000 characters',
                },
              ],
            },
            'separation-of-duties',
            'not-an-approver',
            'approval-link-not-found',
            'approval-link-used',
            'approval-settled',
            'approval-link-expired',
            413,
            415,
            429,
            503,
          ),
        },
      },
    },
    async (request) =>
      approvalHooks.use(request.params.token, request.body ?? {}, auditContext(request)),
  )
}
