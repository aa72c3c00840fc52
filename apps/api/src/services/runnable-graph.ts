import { getGraphForRun, type GraphVersionRow, type TenantTx } from '@weave/db'
import { ConflictError, NotFoundError } from '../http/app-errors.js'

/**
 * The graph version a new run (started or forked) will execute: `version`, or the latest.
 * @throws {NotFoundError} `graph-not-found` or `graph-version-not-found`
 * @throws {ConflictError} `graph-archived`: an archived graph takes no new runs
 */
export async function runnableVersion(
  tx: TenantTx,
  name: string,
  version: number | undefined,
): Promise<GraphVersionRow> {
  // One query for the graph's archive state and the version, on the path of every run start.
  const graph = await getGraphForRun(tx, name, version)
  if (!graph) throw graphNotFoundError(name)
  if (graph.archivedAt) throw graphArchivedError(name)
  const row = graph.version
  if (!row) {
    throw new NotFoundError(`Graph "${name}" has no version ${version ?? 'registered'}.`, {
      problem: 'graph-version-not-found',
    })
  }
  return row
}

/** The `graph-not-found` problem of a new run of the graph `name`. */
export function graphNotFoundError(name: string, options?: ErrorOptions): NotFoundError {
  return new NotFoundError(`No graph named "${name}".`, { problem: 'graph-not-found', ...options })
}

/** The `graph-archived` problem of a new run of the graph `name`. */
export function graphArchivedError(name: string, options?: ErrorOptions): ConflictError {
  return new ConflictError(`Graph "${name}" is archived and takes no new runs.`, {
    problem: 'graph-archived',
    ...options,
  })
}
