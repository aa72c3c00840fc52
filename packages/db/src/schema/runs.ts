import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  boolean,
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
    // One of RUN_STATUSES: the trigger runs_row_rules refuses any other (migration 0045).
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
    // A plain run's concurrency key (concurrency-keys.ts): at most `concurrency_limit` runs of the key
    // hold a slot at once per tenant; the others wait `held`, in `concurrency_seq` order, and the
    // run that ends admits the next (weave_admit_concurrency_runs). The key, the limit (at least 1)
    // and the seq are all set or all null, and a run with a key has no thread: the trigger
    // runs_row_rules refuses any other combination (migration 0045).
    concurrencyKey: text('concurrency_key'),
    concurrencyLimit: integer('concurrency_limit'),
    // The run's place among all runs of its key, taken under the key's lock: the line's order.
    concurrencySeq: integer('concurrency_seq'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    finishedAt: timestamptz('finished_at'),
    // The checkpoint seq retention last applied its policy at (retention.ts): a finished run
    // whose checkpoint seq differs (never seen, or resumed since) is one the next pass visits.
    retainedSeq: integer('retained_seq'),
    // True while the run is finished and retention has not applied its policy since its last
    // checkpoint: set when the run's status becomes terminal, cleared by retention
    // (weave_run_row_rules, migration 0045). The pending index keys on it rather than on
    // checkpoint_seq, which each step moves: a column an index names or filters on makes every
    // update of it write all of the table's indexes (no HOT update).
    retentionDue: boolean('retention_due').notNull().default(false),
    // When retention deletes the finished run (its policy's runDays after it finished); null:
    // kept.
    expiresAt: timestamptz('expires_at'),
  },
  (t) => [
    foreignKey({
      columns: [t.tenantId, t.graphName, t.graphVersion],
      foreignColumns: [graphVersions.tenantId, graphVersions.graphName, graphVersions.version],
    }),
    uniqueIndex('runs_tenant_idempotency_key')
      .on(t.tenantId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    index('runs_tenant_created').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    // A tenant's runs in one status, newest first: a page is read in the index's order.
    index('runs_tenant_status_created').on(t.tenantId, t.status, t.createdAt.desc(), t.id.desc()),
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
    uniqueIndex('runs_concurrency_seq')
      .on(t.tenantId, t.concurrencyKey, t.concurrencySeq)
      .where(sql`concurrency_key is not null`),
    // The runs holding or awaiting a slot of a key: what an admission counts and scans.
    index('runs_concurrency_active')
      .on(t.tenantId, t.concurrencyKey, t.concurrencySeq)
      .where(sql`concurrency_key is not null and status in ('queued', 'running', 'waiting')`),
    // Finished runs retention has not applied its policy to since their last checkpoint.
    index('runs_retention_pending')
      .on(t.finishedAt, t.id)
      .where(sql`retention_due`),
    index('runs_expires_at')
      .on(t.expiresAt, t.id)
      .where(sql`expires_at is not null`),
    // Retention keeps a run another still needs, and deleting a run checks these references.
    index('runs_forked_from')
      .on(t.forkedFrom)
      .where(sql`forked_from is not null`),
    index('runs_base_run_id')
      .on(t.baseRunId)
      .where(sql`base_run_id is not null`),
    index('runs_schedule_active')
      .on(t.scheduleId)
      .where(sql`schedule_id is not null and status in ('queued', 'running', 'waiting')`),
    tenantIsolation(),
  ],
)
