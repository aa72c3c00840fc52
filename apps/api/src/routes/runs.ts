import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import { IdParams } from '../schemas/common.js'
import {
  CheckpointParams,
  CheckpointView,
  ForkRunBody,
  ListRunsQuery,
  ResumeRunBody,
  RunHistory,
  RunPage,
  RunView,
  StartRunBody,
  StartRunHeaders,
} from '../schemas/runs.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['runs']
const accepted = (description: string) => ({
  description,
  content: { 'application/json': { schema: RunView } },
})

/** `/v1/runs`: start, list, read, fork, cancel and resume runs. */
export const runRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { runs }) => {
  app.post(
    '/v1/runs',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'startRun',
        summary: 'Start a run of a graph (queued for a worker)',
        tags: TAGS,
        headers: StartRunHeaders,
        body: StartRunBody,
        response: {
          200: {
            description: 'The run this Idempotency-Key already started (same body)',
            content: { 'application/json': { schema: RunView } },
          },
          202: accepted('The run is queued'),
          ...problemResponses(400, 401, 403, 404, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const { run, created } = await runs.start(request.tenant, request.principal, request.body, {
        idempotencyKey: request.headers['idempotency-key'],
        context: auditContext(request),
      })
      return reply
        .code(created ? 202 : 200)
        .header('location', `/v1/runs/${run.id}`)
        .send(run)
    },
  )

  app.get(
    '/v1/runs',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listRuns',
        summary: "List the tenant's runs, newest first",
        tags: TAGS,
        querystring: ListRunsQuery,
        response: { 200: RunPage, ...problemResponses(400, 401, 403, 429) },
      },
    },
    async (request) => runs.list(request.tenant, request.query),
  )

  app.get(
    '/v1/runs/:id',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'getRun',
        summary: 'Get a run with its latest state',
        tags: TAGS,
        params: IdParams,
        response: { 200: RunView, ...problemResponses(401, 403, 404, 429) },
      },
    },
    async (request) => runs.get(request.tenant, request.params.id),
  )

  app.get(
    '/v1/runs/:id/history',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'getRunHistory',
        summary: "List a run's checkpoints, oldest first",
        tags: TAGS,
        params: IdParams,
        response: { 200: RunHistory, ...problemResponses(401, 403, 404, 429) },
      },
    },
    async (request) => runs.history(request.tenant, request.params.id),
  )

  app.get(
    '/v1/runs/:id/history/:seq',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'getRunCheckpoint',
        summary: 'Get one checkpoint of a run with its state',
        tags: TAGS,
        params: CheckpointParams,
        response: { 200: CheckpointView, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => runs.checkpoint(request.tenant, request.params.id, request.params.seq),
  )

  app.post(
    '/v1/runs/:id/fork',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'forkRun',
        summary: 'Start a new run from one of its checkpoints (the source is untouched)',
        tags: TAGS,
        params: IdParams,
        body: ForkRunBody,
        response: {
          202: accepted('The forked run is queued'),
          ...problemResponses(400, 401, 403, 404, 409, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, params, body } = request
      const run = await runs.fork(tenant, principal, params.id, body, auditContext(request))
      return reply.code(202).header('location', `/v1/runs/${run.id}`).send(run)
    },
  )

  app.post(
    '/v1/runs/:id/cancel',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'cancelRun',
        summary: 'Cancel a run (queued or waiting: at once; running: at its next step)',
        tags: TAGS,
        params: IdParams,
        response: {
          202: accepted('Cancelled, or cancellation requested'),
          ...problemResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, params } = request
      const run = await runs.cancel(tenant, principal, params.id, auditContext(request))
      return reply.code(202).send(run)
    },
  )

  app.post(
    '/v1/runs/:id/resume',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'resumeRun',
        summary: 'Resume a run waiting for input, or retry a failed run',
        tags: TAGS,
        params: IdParams,
        body: ResumeRunBody,
        response: {
          202: accepted('The resume is queued'),
          ...problemResponses(400, 401, 403, 404, 409, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { tenant, principal, params, body } = request
      const run = await runs.resume(tenant, principal, params.id, body, auditContext(request))
      return reply.code(202).send(run)
    },
  )
}
