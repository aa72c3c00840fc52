import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import { IdParams } from '../schemas/common.js'
import { RunEventPage, RunEventsQuery } from '../schemas/runs.js'
import type { ApiServices } from '../services/api-services.js'

/**
 * `GET /v1/runs/{id}/events`: a run's events in order. `?format=json` answers a JSON list; so
 * does every other request until the `text/event-stream` answer exists, which belongs here.
 */
export const runEventRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { runs }) => {
  app.get(
    '/v1/runs/:id/events',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listRunEvents',
        summary: "List a run's events, oldest first",
        tags: ['runs'],
        params: IdParams,
        querystring: RunEventsQuery,
        response: { 200: RunEventPage, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => runs.events(request.tenant, request.params.id, request.query),
  )
}
