import { getTableColumns } from 'drizzle-orm'
import type { Database } from './client.js'
import type { RunRow } from './runs.js'
import { runs } from './schema/runs.js'
import { tableRow } from './table-row.js'
import { isUuid } from './uuid.js'

// The columns a run's view shows, and those its reader needs to complete the view (its line's
// place). The input, the lease and the bookkeeping stay in the database: a GET neither sends
// nor parses them (the input alone is as large as a checkpoint).
const VIEW_KEYS = [
  'id',
  'graphName',
  'graphVersion',
  'status',
  'stopReason',
  'lastStep',
  'steps',
  'error',
  'waitingOn',
  'cancelRequested',
  'createdBy',
  'createdAt',
  'updatedAt',
  'finishedAt',
  'forkedFrom',
  'forkedSeq',
  'concurrencyKey',
  'concurrencyLimit',
  'concurrencySeq',
  'held',
] as const satisfies ReadonlyArray<keyof RunRow>

/** The columns of a run that `GET` of a run reads. */
export type RunViewRow = Pick<RunRow, (typeof VIEW_KEYS)[number]>

/** What `GET` of a run shows, as stored: the run, its pending approvals and latest checkpoint. */
export interface RunRead {
  run: RunViewRow
  /** Ids of the run's pending approvals, newest first. */
  pendingApprovals: string[]
  /** The stored text of the run's latest checkpoint; null when it has none. */
  checkpoint: string | null
}

const COLUMNS = Object.entries(getTableColumns(runs)).filter(([key]) =>
  (VIEW_KEYS as readonly string[]).includes(key),
)

// Named, so each pooled connection parses and plans it once. The function sets the tenant for
// row-level security itself (migration 0030), so the read is one statement, no transaction.
// `(r.run).column` reads the row of the one function call in FROM, which runs once.
const RUN_READ = {
  name: 'weave_read_run',
  text: `SELECT ${COLUMNS.map(([, column]) => `(r.run).${column.name}`).join(', ')}, r.pending_approval_ids, r.checkpoint FROM weave_read_run($1, $2, $3) r`,
}

/**
 * The tenant's run `id`, its pending approvals and its latest checkpoint's stored text, read in
 * one statement; null when the tenant has no such run, also for an id that is not a UUID.
 * `checkpointNsHead` is the stored namespace of a graph's checkpoints without the graph's name,
 * as the tenant's checkpoint store encodes it (PgStore's `namespaceColumn`).
 * @throws TypeError for an empty tenant
 */
export async function readRunForView(
  database: Pick<Database, 'pool'>,
  tenant: string,
  id: string,
  checkpointNsHead: string,
): Promise<RunRead | null> {
  if (typeof tenant !== 'string' || tenant.length === 0) {
    throw new TypeError('tenant must be a non-empty string')
  }
  if (!isUuid(id)) return null
  const { rows } = await database.pool.query<Record<string, unknown>>({
    ...RUN_READ,
    values: [tenant, id, checkpointNsHead],
  })
  const row = rows[0]
  if (!row) return null
  const run = tableRow<RunViewRow>(COLUMNS, row)
  return {
    run,
    pendingApprovals: row.pending_approval_ids as string[],
    checkpoint: (row.checkpoint as string | null) ?? null,
  }
}
