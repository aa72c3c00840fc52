import { sql, type SQL } from 'drizzle-orm'

/**
 * `condition` as a check of the row a statement reached by its key, which the planner never uses
 * to choose an index. A by-id update fenced on a status (a run's `status = 'running'`, an
 * approval's `'pending'`) otherwise also matches the indexes that start with the status, or the
 * tenant and the status: when the statistics say few rows have it, or there are none yet, the
 * planner rates a scan of all those rows as cheap as the primary key and may pick it, and every
 * step then reads the entry of each running run, dead ones included (query-plans.int.test.ts).
 * In a WHERE clause `(c) IS TRUE` keeps the same rows as `c`.
 */
export function rowCheck(condition: SQL | undefined): SQL | undefined {
  return condition && sql`(${condition}) is true`
}
