/** The median of `values` (the mean of the middle two for an even count). @throws Error when empty */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values')
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Element-wise `a[i] / b[i]`: the per-round ratios of two contenders measured in the same round. */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error('paired ratios need as many values on each side')
  return a.map((x, i) => x / b[i]!)
}

/**
 * One-sided sign test: the probability of at least `k` successes in `n` fair coin flips, i.e. how
 * likely it is that `k` of `n` rounds meet a goal by chance when the true median sits on the goal.
 */
export function signTestP(k: number, n: number): number {
  let p = 0
  for (let i = k; i <= n; i++) p += binomial(n, i) / 2 ** n
  return p
}

function binomial(n: number, k: number): number {
  let c = 1
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i
  return c
}
