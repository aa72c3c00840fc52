import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { timestamptz } from './columns.js'
import { graphVersions } from './graphs.js'
import { tenantIsolation } from './roles.js'

/** Every status a run can have. */
export const RUN_STATUSES = [
  'queued',
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
] as const

/** A run's status. */
export type RunStatus = (typeof RUN_STATUSES)[number]

/** One execution of a graph version. */
export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: text('tenant_id').notNull(),
    graphName: text('graph_name').notNull(),
    graphVersion: integer('graph_version').notNull(),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('queued'),
    stopReason: text('stop_reason'),
    lastStep: text('last_step'),
    steps: integer('steps').notNull().default(0),
    error: jsonb('error'),
    input: jsonb('input').notNull(),
    waitingOn: jsonb('waiting_on'),
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    // The job executing the run while it is `running`: only that job may take it again after a
    // worker died, so two jobs never execute one run at once.
    leaseJob: text('lease_job'),
    // The fencing token of the current claim: new at every claim, checked in the transaction of
    // every checkpoint and status change, so an executor that lost its claim writes nothing.
    leaseToken: uuid('lease_token'),
    // The seq of the run's latest checkpoint; a write never moves it backwards.
    checkpointSeq: integer('checkpoint_seq').notNull().default(0),
    // The seq of the run's last event: the next event takes the next number, without gaps.
    eventSeq: integer('event_seq').notNull().default(0),
    // When a waiting run's timer is due (a `wait` step); the reconciler fires overdue ones.
    wakeAt: timestamptz('wake_at'),
    // A resume asked for and not yet taken by a worker (input or retry), kept here so a lost job
    // is rebuilt from Postgres; set by a compare-and-set, so one resume wins.
    pendingResume: jsonb('pending_resume'),
    createdBy: text('created_by').notNull(),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    forkedFrom: uuid('forked_from').references((): AnyPgColumn => runs.id),
    forkedSeq: integer('forked_seq'),
    // A thread's run (threads.ts): its place in the thread, and the run whose latest state it
    // starts from (null: the empty state), resolved when it starts.
    threadId: uuid('thread_id'),
    threadSeq: integer('thread_seq'),
    baseRunId: uuid('base_run_id').references((): AnyPgColumn => runs.id),
    // A queued run that may not start yet: another run of its thread is active. The run that
    // ends releases the next one (weave_release_thread_run), and no job claims a held run.
    held: boolean('held').notNull().default(false),
    // The schedule whose firing started the run.
    scheduleId: uuid('schedule_id'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    finishedAt: timestamptz('finished_at'),
  },
  (t) => [
    foreignKey({
      columns: [t.tenantId, t.graphName, t.graphVersion],
      foreignColumns: [graphVersions.tenantId, graphVersions.graphName, graphVersions.version],
    }),
    check(
      'runs_status_check',
      sql.raw(`status in (${RUN_STATUSES.map((s) => `'${s}'`).join(', ')})`),
    ),
    uniqueIndex('runs_tenant_idempotency_key')
      .on(t.tenantId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    index('runs_tenant_created').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    index('runs_tenant_status').on(t.tenantId, t.status),
    index('runs_tenant_graph_created').on(t.tenantId, t.graphName, t.createdAt.desc(), t.id.desc()),
    // The reconciler's cross-tenant scans, one per kind of repair.
    index('runs_status_updated').on(t.status, t.updatedAt, t.id),
    index('runs_waiting_wake_at')
      .on(t.wakeAt, t.id)
      .where(sql`status = 'waiting' and wake_at is not null`),
    index('runs_pending_resume')
      .on(t.updatedAt, t.id)
      .where(sql`pending_resume is not null`),
    uniqueIndex('runs_thread_seq')
      .on(t.threadId, t.threadSeq)
      .where(sql`thread_id is not null`),
    // One active run per thread, whatever a request or a worker does (threads.int.test.ts).
    uniqueIndex('runs_thread_one_active')
      .on(t.threadId)
      .where(
        sql`thread_id is not null and not held and status in ('queued', 'running', 'waiting')`,
      ),
    index('runs_schedule_active')
      .on(t.scheduleId)
      .where(sql`schedule_id is not null and status in ('queued', 'running', 'waiting')`),
    tenantIsolation(),
  ],
)
