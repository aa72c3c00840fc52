import { DurationError } from './errors.js'

const NUM = String.raw`(\d+(?:[.,]\d+)?)`
const DURATION = new RegExp(
  `^P(?:${NUM}Y)?(?:${NUM}M)?(?:${NUM}W)?(?:${NUM}D)?(?:T(?:${NUM}H)?(?:${NUM}M)?(?:${NUM}S)?)?$`,
)

// Units in the order they appear; years and months have no fixed length and are refused.
const UNITS: ReadonlyArray<{ name: string; ms: number | null }> = [
  { name: 'years', ms: null },
  { name: 'months', ms: null },
  { name: 'weeks', ms: 7 * 86_400_000 },
  { name: 'days', ms: 86_400_000 },
  { name: 'hours', ms: 3_600_000 },
  { name: 'minutes', ms: 60_000 },
  { name: 'seconds', ms: 1_000 },
]

// The largest span a JS Date can represent.
const MAX_MS = 8.64e15

/**
 * Converts an ISO 8601 duration (`P2D`, `PT30M`, `P1DT2H`, `P1W`, `PT0.5S`) to milliseconds.
 * Years and months are refused (no fixed length); only the last component may have a fraction.
 * @throws DurationError when the text is not such a duration.
 */
export function parseDuration(text: string): number {
  const m = DURATION.exec(text)
  if (!m || text === 'P' || text.endsWith('T')) {
    throw new DurationError(text, 'expected a form like P2D, PT30M, P1DT2H or P1W')
  }
  const parts = m.slice(1)
  const present = parts.flatMap((v, i) => (v === undefined ? [] : [i]))
  if (present.length === 0) throw new DurationError(text, 'no component')
  let total = 0
  for (const i of present) {
    const raw = parts[i]!
    const unit = UNITS[i]!
    if (unit.ms === null) {
      throw new DurationError(text, `${unit.name} have no fixed length; use weeks or days`)
    }
    if (/[.,]/.test(raw) && i !== present[present.length - 1]) {
      throw new DurationError(text, 'only the last component may have a fraction')
    }
    total += Number(raw.replace(',', '.')) * unit.ms
  }
  if (!Number.isFinite(total) || total > MAX_MS) throw new DurationError(text, 'too long')
  return Math.round(total)
}
