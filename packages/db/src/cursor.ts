import { sql, type AnyColumn, type SQL } from 'drizzle-orm'
import { InvalidCursorError } from './errors.js'

/** Limits of a list page (docs/http-api.md: 1–200, default 50). */
export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 200

/** Clamps a requested page size into 1..MAX_LIMIT. */
export function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT
  return Math.min(MAX_LIMIT, Math.max(1, Math.trunc(limit)))
}

/** Encodes a keyset position as an opaque cursor. */
export function encodeCursor(position: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url')
}

/**
 * Decodes a cursor made by `encodeCursor` whose members have the given types.
 * @throws InvalidCursorError when the cursor is malformed.
 */
export function decodeCursor<const T extends readonly ('string' | 'number')[]>(
  cursor: string,
  types: T,
): { [K in keyof T]: T[K] extends 'number' ? number : string } {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw new InvalidCursorError()
  }
  if (!Array.isArray(parsed) || parsed.length !== types.length) throw new InvalidCursorError()
  parsed.forEach((item, i) => {
    if (typeof item !== types[i]) throw new InvalidCursorError()
    if (typeof item === 'number' && !Number.isSafeInteger(item)) throw new InvalidCursorError()
  })
  return parsed as { [K in keyof T]: T[K] extends 'number' ? number : string }
}

const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z')
const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * Decodes a `[createdAtIso, id]` cursor, checking the time parses and the id is well formed.
 * @throws InvalidCursorError when it does not.
 */
export function decodeTimeCursor(
  cursor: string,
  isId: (id: string) => boolean = () => true,
): { at: string; id: string } {
  const [at, id] = decodeCursor(cursor, ['string', 'string'] as const)
  const time = Date.parse(at)
  // Postgres stores years 0001-9999 only; a forged time outside them must not reach SQL.
  // Postgres text cannot hold a NUL either: a forged id carrying one is simply invalid.
  if (!(time >= EARLIEST_TIME && time <= LATEST_TIME) || id.includes('\u0000') || !isId(id)) {
    throw new InvalidCursorError()
  }
  return { at: new Date(time).toISOString(), id }
}

/** Splits a page fetched with `limit + 1` rows into items and the next cursor. */
export function toPage<T>(
  rows: T[],
  limit: number,
  position: (last: T) => readonly (string | number)[],
): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null }
  const items = rows.slice(0, limit)
  return { items, nextCursor: encodeCursor(position(items[items.length - 1] as T)) }
}

/** A list filter given as one value or several, as a list (undefined: no filter). */
export function asList<T>(value: T | T[] | undefined): T[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value]
}

/**
 * Newest first by `columns`, in the order of the lists' indexes, which drizzle-kit creates as
 * `DESC NULLS LAST`. drizzle's desc() sorts `NULLS FIRST` (Postgres's default for DESC), an order
 * those indexes cannot give although the columns are never null: each page then read and sorted
 * every row of the tenant (query-plans.int.test.ts).
 */
export function newestFirst(...columns: AnyColumn[]): SQL[] {
  return columns.map((column) => sql`${column} desc nulls last`)
}

/**
 * The keyset condition of a newest-first page: rows strictly older than the cursor's position
 * `(createdAt, id)`, or no condition on the first page.
 */
export function olderThan(
  createdAt: AnyColumn,
  id: AnyColumn,
  after: { at: string; id: string } | null,
): SQL | undefined {
  return after
    ? sql`(${createdAt}, ${id}) < (${after.at}::timestamptz, ${after.id}::uuid)`
    : undefined
}
