import { fmt } from '../kernel/report.js'
import { median } from '../kernel/stats.js'

/**
 * The `q`-quantile (0 < q ≤ 1) by the nearest-rank method: the smallest value with at least
 * `q` of the values at or below it, so p99 of 200 values is the 198th smallest.
 * @throws Error when `values` is empty
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of no values')
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
}

/** "median / p99" of latencies in milliseconds, for a table cell. */
export function medianP99(values: readonly number[]): string {
  if (values.length === 0) return 'n/a'
  return `${fmt(median(values))} / ${fmt(quantile(values, 0.99))}`
}

/** Milliseconds between two ISO timestamps of the server (`to − from`). */
export function isoDiffMs(from: string, to: string): number {
  return Date.parse(to) - Date.parse(from)
}
