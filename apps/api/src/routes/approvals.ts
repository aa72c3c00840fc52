import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { IDEMPOTENT_REPLAYED, problemResponses } from '../http/problem-responses.js'
import {
  ApprovalLinkView,
  ApprovalPage,
  ApprovalView,
  DecisionBody,
  DecisionHeaders,
  IssueLinkBody,
  ListApprovalsQuery,
} from '../schemas/approvals.js'
import { IdParams } from '../schemas/common.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['approvals']

/** `/v1/approvals`: read approvals and decide them. */
export const approvalRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { approvals }) => {
  app.get(
    '/v1/approvals',
    {
      onRequest: app.requireScope('approvals:read'),
      schema: {
        operationId: 'listApprovals',
        summary: "List the tenant's approvals, newest first",
        description:
          'Approvals with their decisions, newest first, optionally only those with a `status` ' +
          '(`pending` for an inbox) or of one run (`runId`). Paged with `limit` and `cursor`.',
        tags: TAGS,
        querystring: ListApprovalsQuery,
        response: {
          200: ApprovalPage,
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request query is invalid: 1 problem.',
              errors: [
                {
                  path: '/query/status',
                  message:
                    'Invalid option: expected one of "pending"|"approved"|"rejected"|"expired"',
                },
              ],
            },
            'invalid-cursor',
            401,
            403,
            429,
          ),
        },
      },
    },
    async (request) => approvals.list(request.tenant, request.query),
  )

  app.get(
    '/v1/approvals/:id',
    {
      onRequest: app.requireScope('approvals:read'),
      schema: {
        operationId: 'getApproval',
        summary: 'Get an approval with its decisions',
        description:
          'What the approvers are shown (`title`, `details`) with its `materialHash`, who may ' +
          'decide, how many approvals it needs, and the decisions so far.',
        tags: TAGS,
        params: IdParams,
        response: {
          200: ApprovalView,
          ...problemResponses(401, 403, 'approval-not-found', 429),
        },
      },
    },
    async (request) => approvals.get(request.tenant, request.params.id),
  )

  app.post(
    '/v1/approvals/:id/decision',
    {
      onRequest: app.requireScope('approvals:decide'),
      schema: {
        operationId: 'decideApproval',
        summary: 'Approve or reject; a settled approval resumes its run once',
        description:
          "The decision's `input` is saved with it in the approval step's record (checked " +
          "against the step's `schema`; no top-level `__` keys), never merged into the run's " +
          'state. With an `Idempotency-Key`, a retried identical request answers as the first ' +
          'did; the same key with another body is 409 `idempotency-conflict`.',
        tags: TAGS,
        params: IdParams,
        headers: DecisionHeaders,
        body: DecisionBody,
        response: {
          200: {
            description:
              'The approval after the decision: settled, or still `pending` until enough ' +
              'approvers decided',
            headers: IDEMPOTENT_REPLAYED,
            content: { 'application/json': { schema: ApprovalView } },
          },
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: "The decision input does not match the approval step's schema.",
              errors: [{ path: '/body/input/reason', message: 'must be string' }],
            },
            401,
            403,
            'separation-of-duties',
            'not-an-approver',
            'approval-not-found',
            'approval-settled',
            'approval-expired',
            'already-decided',
            'material-mismatch',
            'idempotency-conflict',
            415,
            429,
            503,
          ),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, params, body, headers } = request
      const { approval, replayed } = await approvals.decide(tenant, principal, params.id, body, {
        idempotencyKey: headers['idempotency-key'],
        context: auditContext(request),
      })
      if (replayed) reply.header('idempotent-replayed', 'true')
      return approval
    },
  )

  app.post(
    '/v1/approvals/:id/links',
    {
      onRequest: app.requireScope('approvals:link'),
      schema: {
        operationId: 'issueApprovalLink',
        summary: 'Issue a single-use page link to a named approver',
        description:
          'The link opens the approval page `/inbox/a/{token}`, where its recipient sees the ' +
          'approval and decides it as that subject, on the material shown when the link was ' +
          'made. It is never issued to a subject the approval refuses: 403 ' +
          '`separation-of-duties` for the run’s starter under separation of duties, ' +
          '`not-an-approver` when the approval names other subjects (or only scopes: a link ' +
          'carries none). The URL is a credential, returned in this answer only.',
        tags: TAGS,
        params: IdParams,
        body: IssueLinkBody,
        response: {
          201: ApprovalLinkView,
          ...problemResponses(
            400,
            401,
            403,
            'separation-of-duties',
            'not-an-approver',
            'approval-not-found',
            'approval-settled',
            'approval-expired',
            415,
            429,
          ),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, params, body } = request
      const link = await approvals.issueLink(
        tenant,
        principal,
        params.id,
        body,
        auditContext(request),
      )
      return reply.code(201).send(link)
    },
  )
}
