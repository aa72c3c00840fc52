import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { locationHeader, problemResponses } from '../http/problem-responses.js'
import { IdParams } from '../schemas/common.js'
import {
  CreateWebhookBody,
  CreatedWebhook,
  DeliveryPage,
  RotateSecretBody,
  RotatedSecret,
  WebhookPage,
  WebhookPageQuery,
} from '../schemas/webhooks.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['webhooks']
const SCOPE = 'webhooks:manage'

/**
 * `/v1/webhooks`: register, list and delete webhooks, rotate their signing secrets, and read
 * their deliveries.
 */
export const webhookRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { webhooks }) => {
  app.post(
    '/v1/webhooks',
    {
      onRequest: app.requireScope(SCOPE),
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook; the answer shows its signing secret, once',
        description:
          "Weave POSTs each of the tenant's run events whose type is in `events` to `url`, " +
          'signed per Standard Webhooks with the secret in this answer (see `webhooks` in this ' +
          'document for each payload). A webhook given `approvals:decide` also receives approval ' +
          'links in `approval.requested` deliveries; registering one needs that scope too. 503 ' +
          'when the server has no secrets key to keep the secret with.',
        tags: TAGS,
        body: CreateWebhookBody,
        response: {
          201: {
            description: 'The webhook, with its signing secret shown this once',
            headers: {
              Location: locationHeader(
                'The new webhook',
                '/v1/webhooks/9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f',
              ),
            },
            content: { 'application/json': { schema: CreatedWebhook } },
          },
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request body is invalid: 1 problem.',
              errors: [{ path: '/body/url', message: 'must be an http(s) URL' }],
            },
            'webhook-url-refused',
            401,
            {
              problem: 'forbidden',
              detail: 'Giving a webhook the scope "approvals:decide" needs a token holding it too.',
            },
            413,
            415,
            429,
            {
              problem: 'service-unavailable',
              detail: 'Webhooks are not available: this server has no WEAVE_SECRETS_KEY.',
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, body } = request
      const created = await webhooks.create(tenant, principal, body, auditContext(request))
      return reply.code(201).header('location', `/v1/webhooks/${created.id}`).send(created)
    },
  )

  app.get(
    '/v1/webhooks',
    {
      onRequest: app.requireScope(SCOPE),
      schema: {
        operationId: 'listWebhooks',
        summary: "List the tenant's webhooks, newest first",
        description:
          'Webhooks without their secrets, newest first; paged with `limit` and `cursor`.',
        tags: TAGS,
        querystring: WebhookPageQuery,
        response: { 200: WebhookPage, ...problemResponses(400, 'invalid-cursor', 401, 403, 429) },
      },
    },
    async (request) => webhooks.list(request.tenant, request.query),
  )

  app.delete(
    '/v1/webhooks/:id',
    {
      onRequest: app.requireScope(SCOPE),
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook; its pending deliveries are not sent',
        description: 'No event is delivered to it any more; deliveries still pending are not sent.',
        tags: TAGS,
        params: IdParams,
        response: {
          204: z.null().meta({ description: 'Deleted' }),
          ...problemResponses(401, 403, 'webhook-not-found', 429),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, params } = request
      await webhooks.remove(tenant, principal, params.id, auditContext(request))
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      onRequest: app.requireScope(SCOPE),
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Give a webhook a new signing secret, shown once; the old one signs for a grace',
        description:
          'During the grace each delivery carries two signatures in `webhook-signature` (one per ' +
          'secret, space-separated, as Standard Webhooks allows), so receivers verify with ' +
          'either while they switch. A second rotation drops the secret the first one replaced.',
        tags: TAGS,
        params: IdParams,
        body: RotateSecretBody.nullish(),
        response: {
          200: RotatedSecret,
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request body is invalid: 1 problem.',
              errors: [
                { path: '/body/graceSeconds', message: 'Too big: expected number to be <=604800' },
              ],
            },
            401,
            403,
            'webhook-not-found',
            413,
            415,
            429,
            {
              problem: 'service-unavailable',
              detail: 'Webhooks are not available: this server has no WEAVE_SECRETS_KEY.',
            },
          ),
        },
      },
    },
    async (request) => {
      const { tenant, principal, params, body } = request
      return webhooks.rotateSecret(tenant, principal, params.id, body ?? {}, auditContext(request))
    },
  )

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      onRequest: app.requireScope(SCOPE),
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "List a webhook's deliveries with every attempt, newest first",
        description:
          'Each delivery (one per event sent to the webhook) with its status and every HTTP ' +
          'attempt: status code or error, and duration. Paged with `limit` and `cursor`.',
        tags: TAGS,
        params: IdParams,
        querystring: WebhookPageQuery,
        response: {
          200: DeliveryPage,
          ...problemResponses(400, 'invalid-cursor', 401, 403, 'webhook-not-found', 429),
        },
      },
    },
    async (request) => webhooks.deliveries(request.tenant, request.params.id, request.query),
  )
}
