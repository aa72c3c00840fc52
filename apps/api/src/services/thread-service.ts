import type { Json } from '@weave/kernel'
import {
  appendTenantEvent,
  archiveThread,
  getRun,
  getThread,
  getThreadWithStatus,
  latestThreadRun,
  listTenantEvents,
  listThreadRuns,
  listThreads,
  lockActiveThreadRuns,
  lockThread,
  putThread,
  startThreadRun,
  withTenant,
  type RunRow,
  type TenantTx,
  type ThreadRow,
  type ThreadWithStatus,
} from '@weave/db'
import { GraphSpec, validateThreadRunInput } from '@weave/spec'
import type { z } from 'zod'
import type { Principal } from '../auth/principal.js'
import { BadRequestError, ConflictError, NotFoundError } from '../http/app-errors.js'
import type {
  ListThreadsQuery,
  PutThreadBody,
  StartThreadRunBody,
  ThreadPage,
  ThreadRunPage,
  ThreadRunView,
  ThreadRunsQuery,
  ThreadSummary,
  ThreadView,
} from '../schemas/threads.js'
import type { TenantEventPage, TenantEventsQuery } from '../schemas/tenant-events.js'
import { auditRequest } from './audit-request.js'
import { readCheckpoint, tenantStore, visibleState } from './checkpoints.js'
import { refuseClientState } from './client-input.js'
import { enqueueOrDefer, type AuditContext, type ServiceDeps } from './deps.js'
import { runnableVersion } from './runnable-graph.js'
import { toRunSummary, toRunView } from './run-views.js'
import { toTenantEventPage } from './tenant-event-views.js'

/** Threads as the API offers them: agents addressed by a key, their state kept across runs. */
export interface ThreadService {
  /**
   * Creates the thread `key`, or returns it with the metadata and strategy given replaced.
   * @throws {NotFoundError} unknown graph or version; {ConflictError} archived graph, archived
   *   thread, or a thread of another graph
   */
  put(
    tenant: string,
    principal: Principal,
    key: string,
    body: PutThreadBody,
    context: AuditContext,
  ): Promise<{ thread: ThreadView; created: boolean }>
  /** The thread with its latest state and active run. @throws {NotFoundError} */
  get(tenant: string, key: string): Promise<ThreadView>
  /** The tenant's threads, newest first. @throws {BadRequestError} bad metadata or cursor */
  list(tenant: string, query: z.infer<typeof ListThreadsQuery>): Promise<ThreadPage>
  /** Archives a thread with no active run. @throws {NotFoundError}; {ConflictError} busy */
  archive(tenant: string, principal: Principal, key: string, context: AuditContext): Promise<void>
  /**
   * Starts a run of the thread under its (or the request's) multitask strategy.
   * @throws {NotFoundError}; {ConflictError} an active run under `reject` (its id in `activeRun`)
   * @throws {BadRequestError} input with a reserved (`__`) or approval record key
   */
  startRun(
    tenant: string,
    principal: Principal,
    key: string,
    body: StartThreadRunBody,
    context: AuditContext,
  ): Promise<ThreadRunView>
  /** The thread's runs, newest first. @throws {NotFoundError}, {BadRequestError} bad cursor */
  runs(tenant: string, key: string, query: z.infer<typeof ThreadRunsQuery>): Promise<ThreadRunPage>
  /**
   * The thread's events (archived threads' too), newest first.
   * @throws {NotFoundError}, {BadRequestError} bad cursor
   */
  events(
    tenant: string,
    key: string,
    query: z.infer<typeof TenantEventsQuery>,
  ): Promise<TenantEventPage>
}

// A chain of runs superseded before their first checkpoint is short; this only bounds a loop.
const MAX_BASE_HOPS = 10_000

/** Builds the {@link ThreadService}. */
export function createThreadService(deps: ServiceDeps): ThreadService {
  const { database } = deps

  return {
    async put(tenant, principal, key, body, context) {
      const { thread, created } = await withTenant(database, tenant, async (tx) => {
        const version = await runnableVersion(tx, body.graph, body.version)
        const result = await putThread(tx, {
          key,
          graphName: body.graph,
          graphVersion: body.version === undefined ? null : version.version,
          metadata: body.metadata as Json | undefined,
          multitaskStrategy: body.strategy,
          createdBy: principal.subject,
        })
        const { thread } = result
        if (thread.archivedAt) throw archived(key)
        if (thread.graphName !== body.graph) {
          throw new ConflictError(`Thread "${key}" runs graph "${thread.graphName}".`)
        }
        if (result.created || body.metadata !== undefined || body.strategy !== undefined) {
          await auditRequest(
            tx,
            { principal, context },
            {
              action: result.created ? 'thread.created' : 'thread.updated',
              target: { kind: 'thread', id: key },
              details: {
                graph: thread.graphName,
                version: thread.graphVersion,
                strategy: thread.multitaskStrategy,
              },
            },
          )
          await appendThreadChange(tx, principal, thread, result.created, body)
        }
        return result
      })
      return { thread: await view(tenant, thread.key), created }
    },

    get: (tenant, key) => view(tenant, key),

    async list(tenant, query) {
      const metadata = query.metadata === undefined ? undefined : parseMetadata(query.metadata)
      const page = await withTenant(database, tenant, (tx) =>
        listThreads(tx, {
          limit: query.limit,
          cursor: query.cursor ?? null,
          ...(query.status ? { status: query.status } : {}),
          ...(metadata ? { metadata } : {}),
        }),
      )
      return { items: page.items.map(toThreadSummary), nextCursor: page.nextCursor }
    },

    async archive(tenant, principal, key, context) {
      await withTenant(database, tenant, async (tx) => {
        const thread = await requireThread(tx, key)
        const active = await lockActiveThreadRuns(tx, thread.id)
        if (active.length > 0) {
          throw new ConflictError(`Thread "${key}" has an active run; cancel it first.`, {
            extensions: { activeRun: active[0]?.id },
          })
        }
        await archiveThread(tx, thread.id)
        await auditRequest(
          tx,
          { principal, context },
          { action: 'thread.archived', target: { kind: 'thread', id: key } },
        )
        await appendTenantEvent(tx, {
          type: 'thread.archived',
          subject: key,
          actor: principal.subject,
          data: { thread: key },
        })
      })
    },

    async startRun(tenant, principal, key, body, context) {
      const started = await withTenant(database, tenant, async (tx) => {
        const thread = await requireThread(tx, key)
        const version = await runnableVersion(
          tx,
          thread.graphName,
          thread.graphVersion ?? undefined,
        )
        // Held to the input schema as a plain run's input is; keys the schema requires may come
        // from the thread's state, except on its first run (validateThreadRunInput).
        const spec = GraphSpec.parse(version.spec)
        const isFirstRun = (await latestThreadRun(tx, thread.id)) === null
        refuseClientState(
          body.input,
          spec,
          validateThreadRunInput(spec, body.input, { isFirstRun }),
        )
        const result = await startThreadRun(tx, thread, {
          graphVersion: version.version,
          input: body.input as Json,
          createdBy: principal.subject,
          strategy: body.strategy,
        }).catch((err: unknown) => {
          if ((err as { code?: unknown }).code !== 'thread-busy') throw err
          const activeRunId = (err as { activeRunId: string }).activeRunId
          throw new ConflictError(`Thread "${key}" has an active run ${activeRunId}.`, {
            extensions: { activeRun: activeRunId },
          })
        })
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'run.started',
            target: { kind: 'run', id: result.run.id },
            details: {
              graph: thread.graphName,
              version: version.version,
              thread: key,
              strategy: body.strategy ?? thread.multitaskStrategy,
              held: result.held,
              superseded: result.superseded.map((r) => r.id),
            },
          },
        )
        return result
      })
      if (!started.held) {
        await enqueueOrDefer(deps, 'run', { runId: started.run.id, tenant }, context)
      }
      return { ...toRunView(started.run, {}, []), thread: key, held: started.held }
    },

    async runs(tenant, key, query) {
      const page = await withTenant(database, tenant, async (tx) => {
        const thread = await requireThread(tx, key)
        return listThreadRuns(tx, thread.id, { limit: query.limit, cursor: query.cursor ?? null })
      })
      return { items: page.items.map(toRunSummary), nextCursor: page.nextCursor }
    },

    async events(tenant, key, query) {
      const page = await withTenant(database, tenant, async (tx) => {
        if (!(await getThread(tx, key))) throw notFound(key)
        return listTenantEvents(tx, 'thread', key, {
          limit: query.limit,
          cursor: query.cursor ?? null,
        })
      })
      return toTenantEventPage(page)
    },
  }

  async function view(tenant: string, key: string): Promise<ThreadView> {
    const { thread, active, latest } = await withTenant(database, tenant, async (tx) => {
      const thread = await getThreadWithStatus(tx, key)
      if (!thread || thread.archivedAt) throw notFound(key)
      const active = thread.activeRunId ? await getRun(tx, thread.activeRunId) : null
      return { thread, active, latest: await latestThreadRun(tx, thread.id) }
    })
    return {
      ...toThreadSummary(thread),
      activeRun: active ? toRunSummary(active) : null,
      state: await latestState(tenant, thread, latest),
    }
  }

  /** The newest run's latest state, or (before its first checkpoint) that of the run it follows. */
  async function latestState(
    tenant: string,
    thread: ThreadRow,
    newest: RunRow | null,
  ): Promise<Record<string, unknown>> {
    const store = tenantStore(database, tenant)
    let run = newest
    for (let hops = 0; run && hops < MAX_BASE_HOPS; hops++) {
      if (run.checkpointSeq > 0) {
        return visibleState(await readCheckpoint(store, thread.graphName, run.id))
      }
      const baseId = run.baseRunId
      run = baseId ? await withTenant(database, tenant, (tx) => getRun(tx, baseId)) : null
    }
    return {}
  }
}

/** The thread's `thread.created` or `thread.updated` event, in the put's transaction. */
async function appendThreadChange(
  tx: TenantTx,
  principal: Principal,
  thread: ThreadRow,
  created: boolean,
  body: PutThreadBody,
): Promise<void> {
  const common = { subject: thread.key, actor: principal.subject }
  if (created) {
    await appendTenantEvent(tx, {
      ...common,
      type: 'thread.created',
      data: {
        thread: thread.key,
        graph: thread.graphName,
        version: thread.graphVersion,
        strategy: thread.multitaskStrategy,
      },
    })
    return
  }
  const changed = [
    ...(body.metadata === undefined ? [] : (['metadata'] as const)),
    ...(body.strategy === undefined ? [] : (['strategy'] as const)),
  ]
  await appendTenantEvent(tx, {
    ...common,
    type: 'thread.updated',
    data: { thread: thread.key, changed, strategy: thread.multitaskStrategy },
  })
}

/** The thread `key`, locked, unless it is missing or archived. */
async function requireThread(tx: TenantTx, key: string): Promise<ThreadRow> {
  const thread = await lockThread(tx, key)
  if (!thread || thread.archivedAt) throw notFound(key)
  return thread
}

function toThreadSummary(thread: ThreadWithStatus): ThreadSummary {
  return {
    key: thread.key,
    graph: thread.graphName,
    version: thread.graphVersion,
    metadata: thread.metadata as Record<string, unknown>,
    strategy: thread.multitaskStrategy,
    status: thread.status,
    activeRunId: thread.activeRunId,
    createdBy: thread.createdBy,
    createdAt: thread.createdAt.toISOString(),
    updatedAt: thread.updatedAt.toISOString(),
  }
}

function parseMetadata(text: string): Record<string, Json> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError('The metadata filter must be a JSON object.', {
      errors: [{ path: '/query/metadata', message: 'must be a JSON object' }],
    })
  }
  return value as Record<string, Json>
}

function notFound(key: string): NotFoundError {
  return new NotFoundError(`No thread "${key}".`)
}

function archived(key: string): ConflictError {
  return new ConflictError(`Thread "${key}" is archived.`)
}
