import { z } from 'zod'
import { storableJsonProblem, textProblem } from './storable-json.js'

/** An ISO 8601 UTC timestamp with milliseconds, as every Weave time is rendered. */
export const Timestamp = z.iso.datetime().meta({ examples: ['2025-01-31T09:30:00.000Z'] })

// The instants Weave can hand Postgres as a timestamptz: the query builder sends a Date as its
// toISOString(), and Postgres refuses year 0000 and six-digit or negative years (22008, 22007).
const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00.000Z')
const LATEST_TIME = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * An RFC 3339 time a client filters by (`?since=`), with any UTC offset, whose instant falls in
 * years 0001–9999 UTC: `0000-01-01T00:00:00Z` matches the ISO pattern but no timestamptz.
 */
export function FilterTime() {
  return z.iso.datetime({ offset: true }).refine(
    (value) => {
      const time = Date.parse(value)
      return time >= EARLIEST_TIME && time <= LATEST_TIME
    },
    { error: 'must fall between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z' },
  )
}

/** A string Postgres can store as sent (no U+0000, no lone surrogate). */
export function Text() {
  return z.string().check((ctx) => {
    const problem = textProblem(ctx.value)
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value })
  })
}

/** Refuses JSON that could not be stored and hashed as sent (see storableJsonProblem). */
function storable(ctx: z.core.ParsePayload<unknown>): void {
  const problem = storableJsonProblem(ctx.value)
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value })
}

/** Any JSON value Postgres can store and Weave can hash as sent. */
export const JsonValue = z.unknown().check(storable)

/** A JSON object a client sends (run input, decision input). */
export const JsonObject = z
  .record(z.string(), z.unknown())
  .check(storable)
  .meta({ description: 'A JSON object', examples: [{ amount: 120, customer: 'c_42' }] })
/** A JSON object a client sends. */
export type JsonObject = z.infer<typeof JsonObject>

/** A JSON object Weave shows (a state, a spec); stored already, so not checked again. */
export const StoredJsonObject = z.record(z.string(), z.unknown()).meta({
  description: 'A JSON object',
  examples: [{ amount: 120, customer: 'c_42' }],
})

/** `?limit=&cursor=` of every list (docs/http-api.md: 1–200, default 50; the cursor is opaque). */
export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .meta({ description: 'Page size, 1–200' }),
  cursor: Text()
    .min(1)
    .max(512)
    .optional()
    .meta({ description: 'The `nextCursor` of the previous page' }),
})

/** `{ items, nextCursor }`: one page of a list; `nextCursor` is null on the last page. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
  })
}

/** A path parameter naming a resource by id; an id that is no UUID names nothing (404). */
export const IdParams = z.object({
  id: z.string().meta({ description: 'The resource id (a UUID)' }),
})
