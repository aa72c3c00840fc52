import { median, signTestP } from './stats.js'

/** A goal stated as a ratio of two contenders measured in the same round. */
export interface Goal {
  label: string
  /** How the ratio is formed, e.g. "kernel / bare". */
  ratioOf: string
  /** The per-round ratios. */
  ratios: number[]
  limit: number
  kind: 'at-most' | 'at-least'
}

/** A goal judged on the median of its per-round ratios. */
export interface Verdict {
  goal: Goal
  median: number
  /** Rounds whose own ratio met the goal. */
  met: number
  /** One-sided sign test: the chance of `met` or more rounds meeting it if the median sat on the limit. */
  p: number
  pass: boolean
}

/** Judges `goal` on the median of its per-round ratios. */
export function judge(goal: Goal): Verdict {
  const meets = (r: number): boolean =>
    goal.kind === 'at-most' ? r <= goal.limit : r >= goal.limit
  const m = median(goal.ratios)
  const met = goal.ratios.filter(meets).length
  return { goal, median: m, met, p: signTestP(met, goal.ratios.length), pass: meets(m) }
}

/** A markdown table. */
export function mdTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}

/** A number with three significant digits (no exponent below 1e6). */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const abs = Math.abs(n)
  if (abs >= 100) return n.toFixed(0)
  if (abs >= 10) return n.toFixed(1)
  if (abs >= 1) return n.toFixed(2)
  return n.toPrecision(3)
}

/** "median (min–max)" of per-round values. */
export function spread(values: readonly number[]): string {
  return `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`
}

/** The goals table: target, measured median ratio, rounds meeting it, sign-test p, PASS/FAIL. */
export function verdictTable(verdicts: readonly Verdict[]): string {
  return mdTable(
    ['goal', 'ratio', 'target', 'measured (median of rounds)', 'rounds meeting', 'p', 'result'],
    verdicts.map((v) => [
      v.goal.label,
      v.goal.ratioOf,
      `${v.goal.kind === 'at-most' ? '≤' : '≥'} ${v.goal.limit}`,
      `${v.median.toFixed(2)} (${Math.min(...v.goal.ratios).toFixed(2)}–${Math.max(...v.goal.ratios).toFixed(2)})`,
      `${v.met}/${v.goal.ratios.length}`,
      v.p.toFixed(3),
      v.pass ? 'PASS' : 'FAIL',
    ]),
  )
}

/** What a scenario reports: its markdown section and the goals it judged. */
export interface ScenarioReport {
  markdown: string
  verdicts: Verdict[]
}
