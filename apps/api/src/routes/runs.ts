import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  IDEMPOTENT_REPLAYED,
  locationHeader,
  problemResponses,
  type ProblemExample,
} from '../http/problem-responses.js'
import { IdParams } from '../schemas/common.js'
import {
  CheckpointParams,
  CheckpointView,
  ForkRunBody,
  ListRunsQuery,
  ResumeRunBody,
  RunHistory,
  RunPage,
  RUN_EXAMPLES,
  RunView,
  StartRunBody,
  StartRunHeaders,
} from '../schemas/runs.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['runs']
const RUN_LOCATION = locationHeader('The new run', '/v1/runs/0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11')
type RunExample = keyof typeof RUN_EXAMPLES
const runAnswer = (
  description: string,
  example: RunExample | RunExample[],
  headers?: Record<string, ReturnType<typeof locationHeader>>,
) => ({
  description,
  ...(headers ? { headers } : {}),
  content: {
    'application/json': {
      schema: RunView,
      examples: Object.fromEntries([example].flat().map((name) => [name, RUN_EXAMPLES[name]])),
    },
  },
})

// What a client may put into a run: its input, a fork's or a resume's (client-input.ts).
const INPUT_REFUSED: ProblemExample = {
  problem: 'validation-failed',
  detail: 'The input cannot enter the run.',
  errors: [
    { path: '/body/input/amount', message: 'must be number' },
    { path: '/body/input/__step', message: 'a top-level key must not start with "__"' },
  ],
}

/** `/v1/runs`: start, list, read, fork, cancel and resume runs. */
export const runRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { runs }) => {
  app.post(
    '/v1/runs',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'startRun',
        summary: 'Start a run of a graph (queued for a worker)',
        description:
          "Starts a run of a graph's latest version (or `version`) with `input` as its initial " +
          "state, checked against the spec's `input` schema. The run is queued: a worker takes " +
          'it and steps it until it completes, fails or waits (for an approval, input or a ' +
          'timer); follow it with `GET /v1/runs/{id}` or its event stream. With an ' +
          '`Idempotency-Key`, the same request sent again within 24 h answers 200 with the run ' +
          'it started; the same key with another body is 409. With a `concurrencyKey`, at most ' +
          '`concurrencyLimit` runs of the key hold a slot at once; a run started beyond that ' +
          'waits in line (`queued` with a `linePosition`, no worker takes it) and is admitted in ' +
          'start order, with a `run.admitted` event, when a run of the key ends or is cancelled.',
        tags: TAGS,
        headers: StartRunHeaders,
        body: StartRunBody,
        response: {
          200: runAnswer('The run this Idempotency-Key already started (same body)', 'waiting', {
            ...IDEMPOTENT_REPLAYED,
            Location: RUN_LOCATION,
          }),
          202: runAnswer(
            'The run is queued (or waits in its concurrency key line)',
            ['queued', 'inLine'],
            { Location: RUN_LOCATION },
          ),
          ...problemResponses(
            INPUT_REFUSED,
            401,
            403,
            'graph-not-found',
            'graph-version-not-found',
            'graph-archived',
            'idempotency-conflict',
            413,
            415,
            429,
          ),
        },
      },
    },
    async (request, reply) => {
      const { run, created } = await runs.start(request.tenant, request.principal, request.body, {
        idempotencyKey: request.headers['idempotency-key'],
        context: auditContext(request),
      })
      if (!created) reply.header('idempotent-replayed', 'true')
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
        description:
          'Runs without their state, newest first, optionally only those of one `status`, ' +
          '`graph` or `concurrencyKey`; paged with `limit` and `cursor` (`nextCursor` of the ' +
          'previous page).',
        tags: TAGS,
        querystring: ListRunsQuery,
        response: { 200: RunPage, ...problemResponses(400, 'invalid-cursor', 401, 403, 429) },
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
        description:
          "The run with the state of its latest checkpoint (without the engine's `__` keys), " +
          'what it waits for (`waitingOn`), its pending approvals, and why it failed.',
        tags: TAGS,
        params: IdParams,
        response: {
          200: runAnswer('The run', 'waiting'),
          ...problemResponses(401, 403, 'run-not-found', 429),
        },
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
        description:
          'Every checkpoint the run saved, one per step (and one where it yielded), without ' +
          'state: a `seq` here is what `GET …/history/{seq}` reads and a fork starts from.',
        tags: TAGS,
        params: IdParams,
        response: { 200: RunHistory, ...problemResponses(401, 403, 'run-not-found', 429) },
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
        description:
          "The state the run had after checkpoint `seq`, without the engine's `__` keys.",
        tags: TAGS,
        params: CheckpointParams,
        response: {
          200: CheckpointView,
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request params is invalid: 1 problem.',
              errors: [
                { path: '/params/seq', message: 'Invalid input: expected number, received NaN' },
              ],
            },
            401,
            403,
            'run-not-found',
            'checkpoint-not-found',
            429,
          ),
        },
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
        description:
          'A new run of the same graph version continues from checkpoint `seq` of this one, ' +
          'with `input` merged into that state; the source run is not changed. When the input ' +
          'changes what an approval used up to `seq` was approved on, the fork starts where that ' +
          'approval was asked instead, so a person decides again.',
        tags: TAGS,
        params: IdParams,
        body: ForkRunBody,
        response: {
          202: runAnswer('The forked run is queued', 'forked', {
            Location: locationHeader(
              'The new run',
              '/v1/runs/6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d',
            ),
          }),
          ...problemResponses(
            INPUT_REFUSED,
            401,
            403,
            'run-not-found',
            'checkpoint-not-found',
            'graph-archived',
            415,
            429,
          ),
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
        description:
          'A queued or waiting run is cancelled at once (its pending approvals expire); a ' +
          'running run gets `cancelRequested` and stops before its next step. A finished run ' +
          'cannot be cancelled (409).',
        tags: TAGS,
        params: IdParams,
        response: {
          202: {
            description: 'Cancelled, or cancellation requested',
            content: {
              'application/json': {
                schema: RunView,
                examples: {
                  cancelled: RUN_EXAMPLES.cancelled,
                  cancelling: RUN_EXAMPLES.cancelling,
                },
              },
            },
          },
          ...problemResponses(401, 403, 'run-not-found', 'run-finished', 429),
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
        description:
          'A run waiting on an input step takes `input` as its answer (checked against the ' +
          "step's schema) and goes on; a failed run is retried from its last checkpoint, with " +
          '`input` merged into its state first. A run waiting on an approval or a timer is not ' +
          'resumed here (409).',
        tags: TAGS,
        params: IdParams,
        body: ResumeRunBody,
        response: {
          202: runAnswer('The resume is queued', 'resumeQueued'),
          ...problemResponses(
            INPUT_REFUSED,
            401,
            403,
            'run-not-found',
            {
              problem: 'run-not-resumable',
              detail:
                'The run waits on an approval; decide it with POST /v1/approvals/{id}/decision.',
            },
            'approval-material-changed',
            415,
            429,
            503,
          ),
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
