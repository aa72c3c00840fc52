import { TENANT_EVENT_SUBJECTS, TENANT_EVENT_TYPES } from '@weave/db'
import { z } from 'zod'
import { PageQuery, Timestamp, pageOf } from './common.js'

/** One thread or schedule event: what changed, who changed it, and when. */
export const TenantEventView = z
  .object({
    id: z.uuid().meta({ description: 'Also `data.eventId` of its webhook deliveries' }),
    type: z.enum(TENANT_EVENT_TYPES),
    subjectKind: z.enum(TENANT_EVENT_SUBJECTS),
    subject: z.string().meta({ description: "The thread's key or the schedule's id" }),
    actor: z.string().meta({
      description: 'Who made the change: a token subject, or `schedule:<id>` for a tick',
    }),
    at: Timestamp,
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: "As in the event type's webhook payload, without `eventId`" }),
  })
  .meta({
    id: 'TenantEvent',
    examples: [
      {
        id: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
        type: 'schedule.skipped',
        subjectKind: 'schedule',
        subject: '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d',
        actor: 'schedule:2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d',
        at: '2025-01-31T09:30:00.000Z',
        data: {
          schedule: '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d',
          firingId: '7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e',
          tick: '2025-01-31T09:30:00.000Z',
          manual: false,
          reason: 'input-invalid',
          problems: [{ path: '/orderId', message: 'must be string' }],
        },
      },
    ],
  })
/** A thread or schedule event. */
export type TenantEventView = z.infer<typeof TenantEventView>

/** `?limit=&cursor=` of the events lists. */
export const TenantEventsQuery = PageQuery

/** A page of a thread's or a schedule's events, newest first. */
export const TenantEventPage = pageOf(TenantEventView).meta({ id: 'TenantEventPage' })
/** A page of events. */
export type TenantEventPage = z.infer<typeof TenantEventPage>
