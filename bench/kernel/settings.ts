/** How long and how often each scenario measures. */
export interface Settings {
  /** Rounds per scenario; every reported number is a median over them. */
  reps: number
  /** Time slice per contender per round, in milliseconds: (a), (b), (c). */
  sliceMs: { a: number; b: number; c: number }
  /** Warm-up per contender (and per mode in (b)) before the first round, in milliseconds. */
  warmupMs: number
  /** Concurrent loops in (b)'s "16 at once". */
  workers: number
  quick: boolean
  only?: 'a' | 'b' | 'c'
}

const USAGE = 'usage: kernel/run.ts [--quick] [--reps N] [--only a|b|c]'

/**
 * Reads the command-line flags.
 * @throws Error with the usage line for an unknown flag or a bad value
 */
export function parseArgs(argv: readonly string[]): Settings {
  let quick = false
  let reps: number | undefined
  let only: Settings['only']
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--quick') quick = true
    else if (arg === '--reps') {
      reps = Number(argv[++i])
      if (!Number.isInteger(reps) || reps < 1)
        throw new Error(`--reps takes an integer ≥ 1\n${USAGE}`)
    } else if (arg === '--only') {
      const v = argv[++i]
      if (v !== 'a' && v !== 'b' && v !== 'c') throw new Error(`--only takes a, b or c\n${USAGE}`)
      only = v
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`)
  }
  const base: Settings = quick
    ? { reps: 3, sliceMs: { a: 200, b: 300, c: 300 }, warmupMs: 200, workers: 16, quick }
    : { reps: 15, sliceMs: { a: 700, b: 1000, c: 1000 }, warmupMs: 1000, workers: 16, quick }
  if (reps !== undefined) base.reps = reps
  if (only) base.only = only
  return base
}
