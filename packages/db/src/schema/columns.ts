import { timestamp } from 'drizzle-orm/pg-core'

/**
 * A `timestamptz(3)` column read as a `Date`. Millisecond precision makes a stored time equal to
 * its JavaScript `Date` and ISO string, which cursors and the audit hash depend on.
 */
export function timestamptz(name: string) {
  return timestamp(name, { withTimezone: true, precision: 3, mode: 'date' })
}
