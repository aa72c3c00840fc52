import type { Column } from 'drizzle-orm'

/**
 * A row read with raw SQL as drizzle's select would map it: each column's driver value through
 * the column's own mapping (jsonb as pg parsed it, timestamps as Dates); a missing value is null.
 * `columns` are a table's `Object.entries(getTableColumns(table))`, or the ones a statement reads.
 */
export function tableRow<T>(columns: Array<[string, Column]>, row: Record<string, unknown>): T {
  return Object.fromEntries(
    columns.map(([key, column]) => {
      const value = row[column.name]
      return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)]
    }),
  ) as T
}
