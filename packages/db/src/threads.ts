import type { Json } from '@weave/kernel'
import { and, asc, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import {
  decodeCursor,
  decodeTimeCursor,
  newestFirst,
  olderThan,
  pageSize,
  toPage,
} from './cursor.js'
import type { Page, PageOptions } from './page.js'
import { requestRunCancel, type RunRow } from './runs.js'
import { runs } from './schema/runs.js'
import { type MultitaskStrategy, threads } from './schema/threads.js'
import { isUuid } from './uuid.js'

/** A thread row. */
export type ThreadRow = typeof threads.$inferSelect

/** Statuses of a run that make it a thread's active run. */
export const ACTIVE_RUN_STATUSES = ['queued', 'running', 'waiting'] as const

/**
 * A thread's status, from its active run: `idle` (none), `busy` (queued or running) or `waiting`
 * (for an approval, input or a timer).
 */
export const THREAD_STATUSES = ['idle', 'busy', 'waiting'] as const

/** A thread's status. */
export type ThreadStatus = (typeof THREAD_STATUSES)[number]

/** A thread with its status and its active run's id. */
export interface ThreadWithStatus extends ThreadRow {
  status: ThreadStatus
  activeRunId: string | null
}

/** What `putThread` stores. */
export interface PutThreadInput {
  key: string
  graphName: string
  graphVersion: number | null
  metadata?: Json | undefined
  multitaskStrategy?: MultitaskStrategy | undefined
  createdBy: string
}

/** Result of `putThread`. */
export interface PutThread {
  thread: ThreadRow
  /** True when this call created it. */
  created: boolean
}

/**
 * Creates the thread `key`, or returns the existing one with the metadata and strategy given
 * replaced (`created: false`). Concurrent puts of one key create it once. An archived thread
 * is returned as it is: the caller refuses it.
 */
export async function putThread(tx: TenantTx, input: PutThreadInput): Promise<PutThread> {
  const [inserted] = await tx.db
    .insert(threads)
    .values({
      tenantId: tx.tenant,
      key: input.key,
      graphName: input.graphName,
      graphVersion: input.graphVersion,
      metadata: input.metadata ?? {},
      multitaskStrategy: input.multitaskStrategy ?? 'reject',
      createdBy: input.createdBy,
    })
    .onConflictDoNothing({ target: [threads.tenantId, threads.key] })
    .returning()
  if (inserted) return { thread: inserted, created: true }
  const existing = await lockThread(tx, input.key)
  if (!existing) throw new Error(`thread ${input.key} vanished after a conflicting insert`)
  if (existing.archivedAt || (input.metadata === undefined && !input.multitaskStrategy)) {
    return { thread: existing, created: false }
  }
  const [updated] = await tx.db
    .update(threads)
    .set({
      ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
      ...(input.multitaskStrategy ? { multitaskStrategy: input.multitaskStrategy } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(threads.id, existing.id))
    .returning()
  return { thread: updated as ThreadRow, created: false }
}

/** The thread `key` (archived ones too), or null. */
export async function getThread(tx: TenantTx, key: string): Promise<ThreadRow | null> {
  const [row] = await tx.db
    .select()
    .from(threads)
    .where(and(eq(threads.tenantId, tx.tenant), eq(threads.key, key)))
  return row ?? null
}

/**
 * The thread `key`, locked until the transaction ends: starts of one thread take turns on it, so
 * each decides with the previous one's run in sight (threads.int.test.ts).
 */
export async function lockThread(tx: TenantTx, key: string): Promise<ThreadRow | null> {
  const [row] = await tx.db
    .select()
    .from(threads)
    .where(and(eq(threads.tenantId, tx.tenant), eq(threads.key, key)))
    .for('no key update')
  return row ?? null
}

/** Archives a thread that has no active run; returns it, or null when it is archived already. */
export async function archiveThread(tx: TenantTx, id: string): Promise<ThreadRow | null> {
  const [row] = await tx.db
    .update(threads)
    .set({ archivedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(threads.tenantId, tx.tenant), eq(threads.id, id), isNull(threads.archivedAt)))
    .returning()
  return row ?? null
}

/**
 * The thread's runs that count against "one active run": queued, running or waiting, in thread
 * order, each locked until the transaction ends. A run a worker is ending is waited for and read
 * as it ended, so a start never holds a run behind one that is gone.
 */
export async function lockActiveThreadRuns(tx: TenantTx, threadId: string): Promise<RunRow[]> {
  return tx.db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.threadId, threadId),
        inArray(runs.status, [...ACTIVE_RUN_STATUSES]),
      ),
    )
    .orderBy(asc(runs.threadSeq))
    .for('no key update')
}

/** The thread's newest run, or null before its first. */
export async function latestThreadRun(tx: TenantTx, threadId: string): Promise<RunRow | null> {
  const [row] = await tx.db
    .select()
    .from(runs)
    .where(and(eq(runs.tenantId, tx.tenant), eq(runs.threadId, threadId)))
    .orderBy(desc(runs.threadSeq))
    .limit(1)
  return row ?? null
}

/** Takes the thread's next run number (call with the thread locked). */
export async function takeThreadRunSeq(tx: TenantTx, threadId: string): Promise<number> {
  const [row] = await tx.db
    .update(threads)
    .set({ nextRunSeq: sql`${threads.nextRunSeq} + 1`, updatedAt: sql`now()` })
    .where(and(eq(threads.tenantId, tx.tenant), eq(threads.id, threadId)))
    .returning({ next: threads.nextRunSeq })
  return (row?.next ?? 2) - 1
}

/**
 * Stops the given active runs of a thread for a newer one: a queued or waiting run is cancelled
 * at once, a running one at its next step boundary (keeping its checkpoints). Returns the runs
 * as they are afterwards.
 */
export async function supersedeThreadRuns(tx: TenantTx, active: RunRow[]): Promise<RunRow[]> {
  const after: RunRow[] = []
  for (const run of active) {
    const result = await requestRunCancel(tx, run.id)
    if (result) after.push(result.run)
  }
  return after
}

/** Queued runs of a thread that may start now: what a worker enqueues after a run ended. */
export async function readyThreadRuns(tx: TenantTx, threadId: string): Promise<RunRow[]> {
  return tx.db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.threadId, threadId),
        eq(runs.status, 'queued'),
        eq(runs.held, false),
      ),
    )
}

/** The thread's runs, newest first. @throws InvalidCursorError for a cursor not from here. */
export async function listThreadRuns(
  tx: TenantTx,
  threadId: string,
  options: PageOptions = {},
): Promise<Page<RunRow>> {
  const limit = pageSize(options.limit)
  const before = options.cursor ? decodeCursor(options.cursor, ['number'] as const)[0] : null
  const rows = await tx.db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.threadId, threadId),
        before === null ? undefined : lt(runs.threadSeq, before),
      ),
    )
    .orderBy(desc(runs.threadSeq))
    .limit(limit + 1)
  return toPage(rows, limit, (r) => [r.threadSeq ?? 0])
}

// The thread's active run (never a held one): what its status is read from. The outer column is
// spelled out: drizzle renders a column of a single-table select unqualified, which inside this
// subquery would name the run's id.
const activeRunOf = (column: 'id' | 'status') => sql<string | null>`(
  select r.${sql.raw(column)} from runs r
  where r.thread_id = threads.id and not r.held and r.status in ('queued', 'running', 'waiting')
  limit 1
)`

/** The thread `key` with its status, or null (archived ones too). */
export async function getThreadWithStatus(
  tx: TenantTx,
  key: string,
): Promise<ThreadWithStatus | null> {
  const thread = await getThread(tx, key)
  if (!thread) return null
  const [active] = await tx.db
    .select({ id: runs.id, status: runs.status })
    .from(runs)
    .where(
      and(
        eq(runs.tenantId, tx.tenant),
        eq(runs.threadId, thread.id),
        eq(runs.held, false),
        inArray(runs.status, [...ACTIVE_RUN_STATUSES]),
      ),
    )
    .limit(1)
  return { ...thread, ...statusOf(active?.status ?? null, active?.id ?? null) }
}

function statusOf(runStatus: string | null, runId: string | null) {
  const status: ThreadStatus =
    runStatus === null ? 'idle' : runStatus === 'waiting' ? 'waiting' : 'busy'
  return { status, activeRunId: runId }
}

/** Options of `listThreads`. */
export interface ListThreadsOptions extends PageOptions {
  status?: ThreadStatus
  /** Only threads whose metadata contains this object (jsonb `@>`). */
  metadata?: Record<string, Json>
}

/**
 * The tenant's threads that are not archived, newest first, filtered by status and metadata.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listThreads(
  tx: TenantTx,
  options: ListThreadsOptions = {},
): Promise<Page<ThreadWithStatus>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor, isUuid) : null
  const activeStatus = activeRunOf('status')
  const statusFilter =
    options.status === undefined
      ? undefined
      : options.status === 'idle'
        ? sql`${activeStatus} is null`
        : options.status === 'waiting'
          ? sql`${activeStatus} = 'waiting'`
          : sql`${activeStatus} in ('queued', 'running')`
  const rows = await tx.db
    .select({ thread: threads, activeId: activeRunOf('id'), activeStatus })
    .from(threads)
    .where(
      and(
        eq(threads.tenantId, tx.tenant),
        isNull(threads.archivedAt),
        options.metadata === undefined
          ? undefined
          : sql`${threads.metadata} @> ${JSON.stringify(options.metadata)}::jsonb`,
        statusFilter,
        olderThan(threads.createdAt, threads.id, after),
      ),
    )
    .orderBy(...newestFirst(threads.createdAt, threads.id))
    .limit(limit + 1)
  const page = toPage(rows, limit, (r) => [r.thread.createdAt.toISOString(), r.thread.id])
  return {
    items: page.items.map((r) => ({ ...r.thread, ...statusOf(r.activeStatus, r.activeId) })),
    nextCursor: page.nextCursor,
  }
}
