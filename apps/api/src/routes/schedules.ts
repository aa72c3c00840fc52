import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { problemResponses } from '../http/problem-responses.js'
import {
  CreateScheduleBody,
  FiringPage,
  FiringView,
  ListFiringsQuery,
  ListSchedulesQuery,
  SchedulePage,
  ScheduleParams,
  ScheduleView,
} from '../schemas/schedules.js'
import { TenantEventPage, TenantEventsQuery } from '../schemas/tenant-events.js'
import type { ApiServices } from '../services/api-services.js'
import { auditContext } from './audit-context.js'

const TAGS = ['schedules']

/** `/v1/schedules`: runs of a graph or a thread started on a cron or an interval. */
export const scheduleRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { schedules }) => {
  app.post(
    '/v1/schedules',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'createSchedule',
        summary: 'Create a schedule',
        description:
          'Starts runs of a graph (or of a thread, from its latest state) with `input` on a ' +
          '`cron` expression read in an IANA `timezone`, or every `everyMs` milliseconds. Each ' +
          'tick fires once however many workers run, and is recorded as a firing (its run, or ' +
          'why it started none). A bad cron expression or time zone is 422 with a pointer to ' +
          'the field. Audited.',
        tags: TAGS,
        body: CreateScheduleBody,
        response: {
          201: ScheduleView.meta({ description: 'The schedule was created' }),
          ...problemResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const schedule = await schedules.create(
        request.tenant,
        request.principal,
        request.body,
        auditContext(request),
      )
      return reply.code(201).header('location', `/v1/schedules/${schedule.id}`).send(schedule)
    },
  )

  app.get(
    '/v1/schedules',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listSchedules',
        summary: "List the tenant's schedules, newest first",
        description: 'Schedules that are not deleted, paused ones included; paged.',
        tags: TAGS,
        querystring: ListSchedulesQuery,
        response: { 200: SchedulePage, ...problemResponses(400, 401, 403, 429) },
      },
    },
    async (request) => schedules.list(request.tenant, request.query),
  )

  app.get(
    '/v1/schedules/:id',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'getSchedule',
        summary: 'Get a schedule',
        description:
          'The schedule with its target, timing, input and policies; a deleted one is 404. ' +
          'Its firings are at `/v1/schedules/{id}/firings`.',
        tags: TAGS,
        params: ScheduleParams,
        response: { 200: ScheduleView, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => schedules.get(request.tenant, request.params.id),
  )

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(
      `/v1/schedules/:id/${action}`,
      {
        onRequest: app.requireScope('runs:write'),
        schema: {
          operationId: paused ? 'pauseSchedule' : 'resumeSchedule',
          summary: paused ? 'Pause a schedule' : 'Resume a schedule',
          description: paused
            ? 'Stops the schedule firing until it is resumed; a no-op when it is paused. Audited.'
            : 'Lets a paused schedule fire again from its next tick; ticks that fell while it ' +
              'was paused are not caught up. A no-op when it is not paused. Audited.',
          tags: TAGS,
          params: ScheduleParams,
          response: { 200: ScheduleView, ...problemResponses(400, 401, 403, 404, 429) },
        },
      },
      async (request) =>
        schedules.setPaused(
          request.tenant,
          request.principal,
          request.params.id,
          paused,
          auditContext(request),
        ),
    )
  }

  app.delete(
    '/v1/schedules/:id',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'deleteSchedule',
        summary: 'Delete a schedule',
        description:
          'The schedule fires no more and leaves the lists; runs it started are not touched. ' +
          'Audited.',
        tags: TAGS,
        params: ScheduleParams,
        response: {
          204: z.null().meta({ description: 'The schedule is deleted' }),
          ...problemResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      await schedules.remove(
        request.tenant,
        request.principal,
        request.params.id,
        auditContext(request),
      )
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/v1/schedules/:id/trigger',
    {
      onRequest: app.requireScope('runs:write'),
      schema: {
        operationId: 'triggerSchedule',
        summary: 'Fire a schedule now',
        description:
          'Fires the schedule once now, paused or not, under its overlap policy, and answers ' +
          "the firing: the run it started, or why it started none. The schedule's ticks are " +
          'unchanged. Audited.',
        tags: TAGS,
        params: ScheduleParams,
        response: {
          201: FiringView.meta({ description: 'The firing' }),
          ...problemResponses(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const firing = await schedules.trigger(
        request.tenant,
        request.principal,
        request.params.id,
        auditContext(request),
      )
      return reply.code(201).send(firing)
    },
  )

  app.get(
    '/v1/schedules/:id/firings',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listScheduleFirings',
        summary: "List a schedule's firings, newest first",
        description: 'Each firing with its tick, and the run it started or why it started none.',
        tags: TAGS,
        params: ScheduleParams,
        querystring: ListFiringsQuery,
        response: { 200: FiringPage, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => schedules.firings(request.tenant, request.params.id, request.query),
  )

  app.get(
    '/v1/schedules/:id/events',
    {
      onRequest: app.requireScope('runs:read'),
      schema: {
        operationId: 'listScheduleEvents',
        summary: "List a schedule's events, newest first",
        description:
          "A schedule's changes: created, paused, resumed, deleted, and each firing with the run it started (`schedule.fired`) or why it started none (`schedule.skipped`); paged. A deleted schedule's events stay readable.",
        tags: TAGS,
        params: ScheduleParams,
        querystring: TenantEventsQuery,
        response: { 200: TenantEventPage, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => schedules.events(request.tenant, request.params.id, request.query),
  )
}
