/** What one time slice did: operations completed and the wall time they took. */
export interface Slice {
  ops: number
  ms: number
}

/** An operation measured: one run, or one pause/resume cycle. */
export type Op = () => Promise<unknown>

/**
 * Runs `op` back to back until `ms` have passed, in batches of `batch` between clock reads (so a
 * sub-microsecond operation is not dominated by reading the clock).
 */
export async function serialSlice(op: Op, ms: number, batch = 1): Promise<Slice> {
  const start = performance.now()
  const deadline = start + ms
  let ops = 0
  do {
    for (let i = 0; i < batch; i++) await op()
    ops += batch
  } while (performance.now() < deadline)
  return { ops, ms: performance.now() - start }
}

/**
 * Runs `workers` loops at once, each running `op` back to back until `ms` have passed; the slice
 * ends when the last started operation finishes, so the time counts every operation completed.
 */
export async function concurrentSlice(op: Op, ms: number, workers: number): Promise<Slice> {
  const start = performance.now()
  const deadline = start + ms
  let ops = 0
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await op()
      ops += 1
    }
  }
  await Promise.all(Array.from({ length: workers }, worker))
  return { ops, ms: performance.now() - start }
}

/** Operations per second of a slice. */
export function perSecond(s: Slice): number {
  return (s.ops * 1000) / s.ms
}

/** `order` rotated left by `round` places, so every contender takes every position in turn. */
export function rotate<T>(order: readonly T[], round: number): T[] {
  const k = round % order.length
  return [...order.slice(k), ...order.slice(0, k)]
}
