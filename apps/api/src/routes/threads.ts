import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { problemResponses } from '../http/problem-responses.js'
import {
  ListThreadsQuery,
  PutThreadBody,
  StartThreadRunBody,
  ThreadPage,
  ThreadParams,
  ThreadRunPage,
  ThreadRunsQuery,
  ThreadRunView,
  ThreadView,
} from '../schemas/threads.js'
import { TenantEventPage, TenantEventsQuery } from '../schemas/tenant-events.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['threads']

/** `/v1/threads`: agents addressed by a key of the caller's, their state kept across runs. */
export const threadRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { threads }) => {
  app.put(
    '/v1/threads/:key',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'putThread',
        summary: 'Create a thread, or update its metadata and strategy',
        description:
          'Creates the thread `key` for a graph (201), or answers the existing one (200) with ' +
          'the `metadata` and `strategy` sent replacing its own. A thread of another graph, or ' +
          'an archived one, is 409.',
        tags: TAGS,
        params: ThreadParams,
        body: PutThreadBody,
        response: {
          200: ThreadView.meta({ description: 'The existing thread' }),
          201: ThreadView.meta({ description: 'The thread was created' }),
          ...problemResponses(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const { thread, created } = await threads.put(
        request.tenant,
        request.principal,
        request.params.key,
        request.body,
        auditContext(request),
      )
      return reply.code(created ? 201 : 200).send(thread)
    },
  )

  app.get(
    '/v1/threads',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listThreads',
        summary: "List the tenant's threads, newest first",
        description:
          'Threads that are not archived, without their state, optionally only those of one ' +
          '`status` or whose metadata contains the JSON object `metadata`; paged with `limit` ' +
          'and `cursor`.',
        tags: TAGS,
        querystring: ListThreadsQuery,
        response: { 200: ThreadPage, ...problemResponses(400, 401, 403, 429) },
      },
    },
    async (request) => threads.list(request.tenant, request.query),
  )

  app.get(
    '/v1/threads/:key',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'getThread',
        summary: 'Get a thread with its latest state and active run',
        description:
          "The thread's status, its active run, and the latest state of its newest run: what " +
          'the next run starts from.',
        tags: TAGS,
        params: ThreadParams,
        response: { 200: ThreadView, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => threads.get(request.tenant, request.params.key),
  )

  app.delete(
    '/v1/threads/:key',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'archiveThread',
        summary: 'Archive a thread',
        description:
          'Archives a thread with no active run (409 otherwise); it takes no more runs and ' +
          'leaves the lists, and its key stays taken. Audited.',
        tags: TAGS,
        params: ThreadParams,
        response: {
          204: z.null().meta({ description: 'The thread is archived' }),
          ...problemResponses(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      await threads.archive(
        request.tenant,
        request.principal,
        request.params.key,
        auditContext(request),
      )
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/v1/threads/:key/runs',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'startThreadRun',
        summary: "Start a run from the thread's latest state",
        description:
          "Starts a run that begins from the thread's latest state with `input` merged in by " +
          "the graph's merge policies. While another run of the thread is active, the " +
          "`strategy` (the request's, else the thread's) decides: `reject` answers 409 naming " +
          'it in `activeRun`; `enqueue` holds the run until the runs before it ended; ' +
          '`interrupt` stops the active run at its next step boundary and continues from its ' +
          'progress; `rollback` cancels it and starts from the state before it.',
        tags: TAGS,
        params: ThreadParams,
        body: StartThreadRunBody,
        response: {
          202: ThreadRunView.meta({ description: 'The run is queued (or held, `held: true`)' }),
          ...problemResponses(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const run = await threads.startRun(
        request.tenant,
        request.principal,
        request.params.key,
        request.body,
        auditContext(request),
      )
      return reply.code(202).header('location', `/v1/runs/${run.id}`).send(run)
    },
  )

  app.get(
    '/v1/threads/:key/runs',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listThreadRuns',
        summary: "List a thread's runs, newest first",
        description: "The thread's runs without their state, newest first; paged.",
        tags: TAGS,
        params: ThreadParams,
        querystring: ThreadRunsQuery,
        response: {
          200: ThreadRunPage,
          ...problemResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => threads.runs(request.tenant, request.params.key, request.query),
  )

  app.get(
    '/v1/threads/:key/events',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listThreadEvents',
        summary: "List a thread's events, newest first",
        description:
          "A thread's changes: created, updated, archived, and each run queued on it with the runs it interrupted or rolled back; paged. An archived thread's events stay readable.",
        tags: TAGS,
        params: ThreadParams,
        querystring: TenantEventsQuery,
        response: { 200: TenantEventPage, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => threads.events(request.tenant, request.params.key, request.query),
  )
}
