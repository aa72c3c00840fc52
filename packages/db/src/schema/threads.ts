import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { tenantIsolation } from './roles.js'
import { runs } from './runs.js'

/**
 * What a thread does with a run asked for while another of its runs is active: refuse it
 * (`reject`), run it after the active ones (`enqueue`), stop the active run at its next step
 * boundary and continue from its progress (`interrupt`), or cancel the active run and start from
 * the state before it (`rollback`).
 */
export const MULTITASK_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'rollback'] as const

/** A thread's multitask strategy. */
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number]

/**
 * An agent addressed by a key of the caller's choosing: its runs carry its state from one to the
 * next, and at most one of them is active at a time. Archiving is a soft delete.
 */
export const threads = pgTable(
  'threads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    key: text('key').notNull(),
    graphName: text('graph_name').notNull(),
    // Null: each run takes the graph's latest version when it starts.
    graphVersion: integer('graph_version'),
    metadata: jsonb('metadata').notNull().default({}),
    multitaskStrategy: text('multitask_strategy', { enum: MULTITASK_STRATEGIES })
      .notNull()
      .default('reject'),
    // The thread_seq the next run of the thread takes; bumped under the thread's row lock.
    nextRunSeq: integer('next_run_seq').notNull().default(1),
    createdBy: text('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    archivedAt: timestamptz('archived_at'),
  },
  (t) => [
    unique('threads_tenant_key').on(t.tenantId, t.key),
    check(
      'threads_multitask_strategy_check',
      sql.raw(`multitask_strategy in (${MULTITASK_STRATEGIES.map((s) => `'${s}'`).join(', ')})`),
    ),
    index('threads_tenant_created').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    tenantIsolation(),
  ],
)

/** How a schedule treats a firing while the run of its previous firing is still active. */
export const OVERLAP_POLICIES = ['skip', 'enqueue', 'allow'] as const

/** A schedule's overlap policy. */
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number]

/** What a schedule does with a firing found late (every worker was down at its time). */
export const CATCH_UP_POLICIES = ['once', 'skip'] as const

/** A schedule's catch-up policy. */
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number]

/** Runs of a graph or of a thread started on a cron (with an IANA time zone) or an interval. */
export const schedules = pgTable(
  'schedules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    graphName: text('graph_name').notNull(),
    // Firings start runs of this thread (its strategy applies) instead of plain runs.
    threadId: uuid('thread_id').references((): AnyPgColumn => threads.id),
    // A graph target's version; null: each firing takes the graph's latest version.
    graphVersion: integer('graph_version'),
    input: jsonb('input').notNull().default({}),
    cron: text('cron'),
    timezone: text('timezone'),
    everyMs: integer('every_ms'),
    overlap: text('overlap', { enum: OVERLAP_POLICIES }).notNull().default('skip'),
    catchUp: text('catch_up', { enum: CATCH_UP_POLICIES }).notNull().default('once'),
    paused: boolean('paused').notNull().default(false),
    createdBy: text('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    deletedAt: timestamptz('deleted_at'),
  },
  (t) => [
    check('schedules_timing_check', sql`(cron is null) <> (every_ms is null)`),
    check('schedules_every_ms_check', sql`every_ms is null or every_ms >= 1000`),
    check(
      'schedules_overlap_check',
      sql.raw(`overlap in (${OVERLAP_POLICIES.map((s) => `'${s}'`).join(', ')})`),
    ),
    check(
      'schedules_catch_up_check',
      sql.raw(`catch_up in (${CATCH_UP_POLICIES.map((s) => `'${s}'`).join(', ')})`),
    ),
    index('schedules_tenant_created').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    tenantIsolation(),
  ],
)

/** What one firing of a schedule did. */
export const FIRING_OUTCOMES = ['started', 'skipped'] as const

/** A firing's outcome. */
export type FiringOutcome = (typeof FIRING_OUTCOMES)[number]

/**
 * One firing of a schedule: the run it started or why it started none. Unique per tick, so a
 * tick handled by two workers is recorded (and runs) once.
 */
export const scheduleFirings = pgTable(
  'schedule_firings',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    scheduleId: uuid('schedule_id')
      .notNull()
      .references(() => schedules.id),
    // The tick's time; a manual trigger has its own unique key instead.
    tick: text('tick').notNull(),
    firedAt: timestamptz('fired_at').notNull().defaultNow(),
    scheduledFor: timestamptz('scheduled_for'),
    runId: uuid('run_id').references(() => runs.id),
    outcome: text('outcome', { enum: FIRING_OUTCOMES }).notNull(),
    reason: text('reason'),
  },
  (t) => [
    uniqueIndex('schedule_firings_schedule_tick').on(t.scheduleId, t.tick),
    index('schedule_firings_schedule_fired').on(t.scheduleId, t.firedAt.desc(), t.id.desc()),
    check(
      'schedule_firings_outcome_check',
      sql.raw(`outcome in (${FIRING_OUTCOMES.map((s) => `'${s}'`).join(', ')})`),
    ),
    tenantIsolation(),
  ],
)
