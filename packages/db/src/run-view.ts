import { getTableColumns } from 'drizzle-orm'
import type { Database } from './client.js'
import type { RunRow } from './runs.js'
import { runs } from './schema/runs.js'
import { isUuid } from './uuid.js'

/** A run with the ids of its pending approvals, newest first. */
export interface RunWithPending {
  run: RunRow
  pendingApprovals: string[]
}

// Named, so each pooled connection parses and plans it once. Both functions set the tenant for
// row-level security themselves (migration 0016), so the read is one statement, no transaction.
const RUN_VIEW = {
  name: 'weave_run_view',
  text: `SELECT r.*, weave_pending_approval_ids(r.tenant_id, r.id) AS pending_approval_ids
    FROM weave_run_row($1, $2) r`,
}

const COLUMNS = Object.entries(getTableColumns(runs))

/**
 * The tenant's run `id` and its pending approvals, read in one statement (what `GET` of a run
 * shows besides its state); null when the tenant has no such run, also for an id that is not
 * a UUID.
 */
export async function readRunWithPending(
  database: Pick<Database, 'pool'>,
  tenant: string,
  id: string,
): Promise<RunWithPending | null> {
  if (typeof tenant !== 'string' || tenant.length === 0) {
    throw new TypeError('tenant must be a non-empty string')
  }
  if (!isUuid(id)) return null
  const { rows } = await database.pool.query<Record<string, unknown>>({
    ...RUN_VIEW,
    values: [tenant, id],
  })
  const row = rows[0]
  if (!row) return null
  // The columns as drizzle would have read them (jsonb parsed, timestamps as Date).
  const run = Object.fromEntries(
    COLUMNS.map(([key, column]) => {
      const value = row[column.name]
      return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)]
    }),
  ) as RunRow
  return { run, pendingApprovals: row.pending_approval_ids as string[] }
}
