import type { Json } from '@weave/kernel'
import { chainPendingAudit, hashJson, startRun, type StartedRun } from '@weave/db'
import { validateRunInput } from '@weave/spec'
import type { Principal } from '../auth/principal.js'
import { ConflictError } from '../http/app-errors.js'
import type { RunView, StartRunBody } from '../schemas/runs.js'
import { refuseClientState } from './client-input.js'
import { enqueueOrDefer, type AuditContext, type ServiceDeps } from './deps.js'
import { graphArchivedError, graphNotFoundError } from './runnable-graph.js'
import type { RunnableSpec, RunnableSpecs } from './runnable-specs.js'
import { toRunView } from './run-views.js'

/** What a start needs besides its body. */
export interface StartOptions {
  idempotencyKey?: string | undefined
  context: AuditContext
}

/** Starts a run (see RunService.start). */
export type StartRun = (
  tenant: string,
  principal: Principal,
  body: StartRunBody,
  options: StartOptions,
) => Promise<{ run: RunView; created: boolean }>

/**
 * Builds the start of a run: the input is validated against the graph version's spec, parsed
 * once per process (`specs`), and the run is started in one statement (startRun), which checks
 * that the graph still has that version, as the latest when the request named none. When it no
 * longer does (a cached spec out of date) the version is read again and the start tried once
 * more. `get` reads a run an idempotency key already names.
 */
export function createRunStart(
  deps: ServiceDeps,
  specs: RunnableSpecs,
  get: (tenant: string, id: string) => Promise<RunView>,
): StartRun {
  /**
   * The spec the input is valid against. A cached spec may be one the graph no longer has, so
   * input it refuses is refused only after the graph's current spec refuses it too.
   * @throws {BadRequestError} the input's problems
   */
  async function validatedSpec(
    tenant: string,
    body: StartRunBody,
    fresh: boolean,
  ): Promise<RunnableSpec> {
    let { runnable, isCached } = await specs.resolve(tenant, body.graph, body.version, { fresh })
    let problems = validateRunInput(runnable.spec, body.input)
    if (problems.length > 0 && isCached) {
      ;({ runnable, isCached } = await specs.resolve(tenant, body.graph, body.version, {
        fresh: true,
      }))
      problems = validateRunInput(runnable.spec, body.input)
    }
    refuseClientState(body.input, runnable.spec, problems)
    return runnable
  }

  async function startOnce(
    tenant: string,
    principal: Principal,
    body: StartRunBody,
    { idempotencyKey, context }: StartOptions,
    fresh: boolean,
  ): Promise<StartedRun> {
    const runnable = await validatedSpec(tenant, body, fresh)
    const start = startRun(deps.database, {
      tenant,
      graphName: body.graph,
      graphVersion: runnable.version,
      digest: runnable.digest,
      isLatest: body.version === undefined,
      input: body.input as Json,
      createdBy: principal.subject,
      idempotencyKey: idempotencyKey ?? null,
      requestHash: idempotencyKey === undefined ? null : hashJson(body),
      concurrency:
        body.concurrencyKey === undefined
          ? null
          : { key: body.concurrencyKey, limit: body.concurrencyLimit ?? 1 },
      context,
    })
    return start.catch((err: unknown) => {
      throw startRefusal(err, body.graph, fresh)
    })
  }

  return async (tenant, principal, body, options) => {
    const started = await startOnce(tenant, principal, body, options, false).catch(
      (err: unknown) => {
        if ((err as { code?: unknown }).code !== 'graph-version-changed') throw err
        return startOnce(tenant, principal, body, options, true)
      },
    )
    const { run, created, position } = started
    // A run waiting in its concurrency key's line gets its job when it is admitted. The start's
    // audit event, committed pending, is chained meanwhile.
    await Promise.all([
      run.status === 'queued' && !run.held
        ? enqueueOrDefer(deps, 'run', { runId: run.id, tenant }, options.context)
        : undefined,
      created ? chainPendingAudit(deps.database.pool, tenant) : undefined,
    ])
    return {
      run: created ? toRunView(run, {}, [], position) : await get(tenant, run.id),
      created,
    }
  }
}

/**
 * A graph's refusal of a start (RunStartRefusedError) as the problem a client gets; other errors
 * as they are. A version that changed is left to be tried again, unless it was just read: then
 * the graph changed twice during the start.
 */
function startRefusal(err: unknown, graph: string, fresh: boolean): unknown {
  switch ((err as { code?: unknown }).code) {
    case 'graph-not-found':
      return graphNotFoundError(graph, { cause: err })
    case 'graph-archived':
      return graphArchivedError(graph, { cause: err })
    case 'graph-version-changed':
      return fresh
        ? new ConflictError(`Graph "${graph}" changed while the run was starting; try again.`, {
            cause: err,
          })
        : err
    default:
      return err
  }
}
