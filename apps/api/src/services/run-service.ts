import {
  concurrencyLinePosition,
  listRunEvents,
  listRuns,
  readRunForView,
  withTenant,
} from '@weave/db'
import type { Principal } from '../auth/principal.js'
import { BadRequestError, NotFoundError } from '../http/app-errors.js'
import type {
  CheckpointView,
  ListRunsQuery,
  RunEventPage,
  RunEventsQuery,
  RunHistory,
  RunPage,
  RunView,
  StartRunBody,
} from '../schemas/runs.js'
import type { z } from 'zod'
import { missingCheckpointError, readCheckpoint, tenantStore, visibleState } from './checkpoints.js'
import { checkpointNsHead, decodeLatestCheckpoint } from './latest-checkpoint.js'
import type { AuditContext, ServiceDeps } from './deps.js'
import { createRunActions, type RunActions } from './run-actions.js'
import { toRunEvent } from './run-event-stream.js'
import { createRunnableSpecs } from './runnable-specs.js'
import { createRunStart } from './run-start.js'
import { requireRun, toRunSummary, toRunView } from './run-views.js'

/** Runs as the API offers them: start, read, and (see {@link RunActions}) steer. */
export interface RunService extends RunActions {
  /**
   * Starts a run, or returns the run an `Idempotency-Key` already names (`created: false`).
   * @throws {NotFoundError} unknown graph or version; {ConflictError} archived graph
   * @throws {BadRequestError} input that fails the spec's input schema, or holds a reserved
   *   (`__`) or approval record key
   * @throws IdempotencyConflictError (`idempotency-conflict`) for a key reused with another body
   */
  start(
    tenant: string,
    principal: Principal,
    body: StartRunBody,
    options: { idempotencyKey?: string | undefined; context: AuditContext },
  ): Promise<{ run: RunView; created: boolean }>
  /** The tenant's runs, newest first. @throws InvalidCursorError (`invalid-cursor`) */
  list(tenant: string, query: z.infer<typeof ListRunsQuery>): Promise<RunPage>
  /** A run with its latest state. @throws {NotFoundError} */
  get(tenant: string, id: string): Promise<RunView>
  /** A run's checkpoints, oldest first. @throws {NotFoundError} */
  history(tenant: string, id: string): Promise<RunHistory>
  /** One checkpoint of a run with its state. @throws {NotFoundError} */
  checkpoint(tenant: string, id: string, seq: number): Promise<CheckpointView>
  /** A run's events, oldest first. @throws {NotFoundError}, {BadRequestError} bad cursor */
  events(tenant: string, id: string, query: z.infer<typeof RunEventsQuery>): Promise<RunEventPage>
}

/** Builds the {@link RunService}. */
export function createRunService(deps: ServiceDeps): RunService {
  const { database, registry } = deps

  async function get(tenant: string, id: string): Promise<RunView> {
    // One statement for the run, its pending approvals and its latest checkpoint's stored text.
    const store = tenantStore(database, tenant)
    const found = await readRunForView(database, tenant, id, checkpointNsHead(store))
    if (!found) throw new NotFoundError(`No run ${id}.`, { problem: 'run-not-found' })
    const { run, pendingApprovals } = found
    const checkpoint = await decodeLatestCheckpoint(store, run, found.checkpoint)
    const position = run.held
      ? await withTenant(database, tenant, (tx) => concurrencyLinePosition(tx, run))
      : null
    return toRunView(run, visibleState(checkpoint), pendingApprovals, position)
  }

  return {
    ...createRunActions(deps, get),
    get,

    start: createRunStart(deps, createRunnableSpecs(database), get),

    async list(tenant, query) {
      const page = await withTenant(database, tenant, (tx) => listRuns(tx, query))
      return { items: page.items.map(toRunSummary), nextCursor: page.nextCursor }
    },

    async history(tenant, id) {
      const run = await withTenant(database, tenant, (tx) => requireRun(tx, id))
      const { graph } = await registry.get(tenant, run.graphName, run.graphVersion)
      const items = await graph.history(run.id, { store: tenantStore(database, tenant) })
      return { items }
    },

    async checkpoint(tenant, id, seq) {
      const run = await withTenant(database, tenant, (tx) => requireRun(tx, id))
      const store = tenantStore(database, tenant)
      const checkpoint = await readCheckpoint(store, run.graphName, run.id, seq)
      if (!checkpoint) throw missingCheckpointError(run, seq)
      const { state: _state, ...info } = checkpoint
      return { ...info, state: visibleState(checkpoint) }
    },

    async events(tenant, id, query) {
      const afterSeq = query.cursor === undefined ? 0 : eventCursor(query.cursor)
      const events = await withTenant(database, tenant, async (tx) => {
        await requireRun(tx, id)
        return listRunEvents(tx, id, { afterSeq, limit: query.limit + 1 })
      })
      const items = events.slice(0, query.limit).map(toRunEvent)
      const last = items.at(-1)
      return { items, nextCursor: events.length > query.limit && last ? String(last.id) : null }
    },
  }
}

function eventCursor(cursor: string): number {
  if (!/^[0-9]{1,10}$/.test(cursor) || Number(cursor) > 2_147_483_647) {
    throw new BadRequestError('The cursor is not one this server issued.', {
      problem: 'invalid-cursor',
    })
  }
  return Number(cursor)
}
