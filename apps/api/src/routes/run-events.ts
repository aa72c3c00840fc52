import type { PassThrough } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { problemResponses } from '../http/problem-responses.js'
import { EVENT_STREAM_TYPE, wantsEventStream } from '../http/sse.js'
import { IdParams } from '../schemas/common.js'
import {
  RunEventPage,
  RunEventStreamMessage,
  RunEventsHeaders,
  RunEventsQuery,
} from '../schemas/runs.js'
import type { ApiServices } from '../services/api-services.js'

const STREAM_EXAMPLE = [
  'retry: 2000',
  '',
  'id: 1',
  'event: run.queued',
  'data: {"id":1,"type":"run.queued","data":{"graph":"refunds","version":2},"at":"2025-01-31T09:30:00.000Z"}',
  '',
  ': ping',
  '',
  'id: 2',
  'event: run.started',
  'data: {"id":2,"type":"run.started","data":{},"at":"2025-01-31T09:30:00.200Z"}',
  '',
  '',
].join('\n')

// An example must match its schema (one message), so the raw text is shown in its description.
const STREAM_TEXT_DESCRIPTION = `As sent on the wire:\n\n\`\`\`\n${STREAM_EXAMPLE}\`\`\``
const STREAM_MESSAGE_EXAMPLE = {
  id: '1',
  event: 'run.queued',
  data: {
    id: 1,
    type: 'run.queued',
    data: { graph: 'refunds', version: 2 },
    at: '2025-01-31T09:30:00.000Z',
  },
}

/**
 * `GET /v1/runs/{id}/events`: a run's events in order, as Server-Sent Events (live until the
 * run's terminal event) or, with `?format=json` or `Accept: application/json`, as a JSON list.
 */
export const runEventRoutes: FastifyPluginAsyncZod<ApiServices> = async (
  app,
  { runs, runEvents },
) => {
  const streams = new Set<PassThrough>()
  // An open stream would keep app.close() waiting for ever: end them first (clients reconnect).
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end()
  })

  app.get(
    '/v1/runs/:id/events',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listRunEvents',
        summary: "Stream a run's events (SSE), or list them with ?format=json",
        description:
          'By default a `text/event-stream`: every event of the run in order, each with `id:` its ' +
          'sequence number, `event:` its type and `data:` the event as JSON; then new events as ' +
          "they happen, until the run's terminal event (`run.completed`, `run.failed`, " +
          '`run.cancelled`), after which the stream ends. A `: ping` comment is sent while idle. ' +
          'Reconnect with `Last-Event-ID` (or `?lastEventId=`) to receive only later events. ' +
          'With `?format=json` (or `Accept: application/json` without `text/event-stream`) the ' +
          'events are a JSON list, paged with `limit` and `cursor`. Streams are limited per ' +
          'server and per tenant (503 with `Retry-After` beyond), and a stream whose client ' +
          'stops reading is ended; reconnecting with `Last-Event-ID` loses nothing. Each message ' +
          'of the stream is described by `RunEventStreamMessage`, and its `data` by `RunEvent`.',
        tags: ['runs'],
        params: IdParams,
        querystring: RunEventsQuery,
        headers: RunEventsHeaders,
        response: {
          200: {
            description: 'The events: a live event stream, or a JSON list',
            content: {
              'application/json': { schema: RunEventPage },
              [EVENT_STREAM_TYPE]: {
                schema: RunEventStreamMessage,
                examples: {
                  stream: {
                    summary: 'The first messages of a stream, as sent',
                    description: STREAM_TEXT_DESCRIPTION,
                    value: STREAM_MESSAGE_EXAMPLE,
                  },
                },
              },
            },
          },
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request headers is invalid: 1 problem.',
              errors: [
                {
                  path: '/headers/last-event-id',
                  message: 'must be an event id (a sequence number)',
                },
              ],
            },
            'invalid-cursor',
            401,
            403,
            'run-not-found',
            429,
            {
              problem: 'service-unavailable',
              detail: 'Too many event streams are open for this tenant; retry shortly.',
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      if (request.query.format === 'json' || !wantsEventStream(request.headers.accept)) {
        return reply.send(await runs.events(request.tenant, id, request.query))
      }
      // open() takes a slot before it awaits anything, so concurrent opens cannot overshoot the
      // per-process and per-tenant caps (503 with Retry-After beyond them).
      const afterSeq = request.headers['last-event-id'] ?? request.query.lastEventId ?? 0
      const stream = await runEvents.open(request.tenant, id, afterSeq, request.log, {
        endAt: request.principal.expiresAt,
      })
      streams.add(stream)
      stream.on('close', () => streams.delete(stream))
      return reply
        .type(`${EVENT_STREAM_TYPE}; charset=utf-8`)
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(stream)
    },
  )
}
