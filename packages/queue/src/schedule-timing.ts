import type { ScheduleTiming } from '@weave/db'
import { CronExpressionParser } from 'cron-parser'

/**
 * Why a time zone is not one this runtime knows, or null for a valid IANA name. Intl is the
 * judge: it is what cron-parser (through luxon) resolves zones with as well.
 */
export function timeZoneProblem(timezone: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
    return null
  } catch {
    return `"${timezone}" is not an IANA time zone`
  }
}

/**
 * Why a cron expression is refused, or null when BullMQ's own parser (cron-parser) accepts it in
 * the time zone: five fields, or six with seconds first.
 */
export function cronProblem(cron: string, timezone: string): string | null {
  const fields = cron.trim().split(/\s+/)
  if (fields.length < 5 || fields.length > 6) {
    return 'a cron expression has 5 fields (minute hour day month weekday) or 6 (seconds first)'
  }
  try {
    CronExpressionParser.parse(cron, { tz: timezone }).next()
    return null
  } catch (err) {
    return `not a valid cron expression: ${(err as Error).message}`
  }
}

/**
 * The newest tick of `timing` after `after` and at or before `now`, or null when none fell in
 * between. Interval ticks are `anchor + k * everyMs`.
 */
export function latestTickBetween(
  timing: ScheduleTiming,
  after: Date,
  now: Date,
  anchor: Date = after,
): Date | null {
  if ('everyMs' in timing) {
    const k = Math.floor((now.getTime() - anchor.getTime()) / timing.everyMs)
    const tick = anchor.getTime() + k * timing.everyMs
    return k >= 1 && tick > after.getTime() ? new Date(tick) : null
  }
  const previous = CronExpressionParser.parse(timing.cron, {
    tz: timing.timezone,
    currentDate: new Date(now.getTime() + 1),
  }).prev()
  const tick = previous.toDate()
  return tick.getTime() > after.getTime() ? tick : null
}

/** The first interval tick after `now` on the lattice `anchor + k * everyMs`. */
export function nextIntervalTick(everyMs: number, anchor: Date, now: Date): Date {
  const k = Math.floor((now.getTime() - anchor.getTime()) / everyMs) + 1
  return new Date(anchor.getTime() + Math.max(k, 1) * everyMs)
}
