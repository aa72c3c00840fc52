import type { Step } from './context.js'
import { KernelError, ParallelConflictError } from './errors.js'
import { deriveContext } from './internal.js'
import type { Delta, State } from './json.js'
import { copyJson, deepFreeze, isPlainObject, setOwn } from './json-copy.js'

/** Combines the branch deltas (in declaration order) into the step's delta. */
export type ParallelMerge = (deltas: Record<string, State>, state: Readonly<State>) => Delta

/**
 * A step that runs `branches` concurrently on the same state. A failing branch aborts its
 * siblings' signals and, once all have settled, the step throws the first error. One step: one
 * seq, one budget unit, one checkpoint.
 */
export function parallel(branches: Record<string, Step>, mergeDeltas?: ParallelMerge): Step {
  const names = Object.keys(branches)
  return async (state, ctx) => {
    const controller = new AbortController()
    const abort = () => controller.abort(ctx.signal.reason)
    if (ctx.signal.aborted) abort()
    else ctx.signal.addEventListener('abort', abort, { once: true })
    let firstError: { error: unknown } | undefined
    try {
      const settled = await Promise.allSettled(
        names.map(async (name) => {
          try {
            const branchCtx = deriveContext(ctx, {
              step: `${ctx.step}/${name}`,
              signal: controller.signal,
            })
            return branchDelta(await branches[name]!(state, branchCtx), name)
          } catch (error) {
            firstError ??= { error }
            controller.abort(error)
            throw error
          }
        }),
      )
      if (firstError) throw firstError.error
      const deltas: Record<string, State> = {}
      names.forEach((name, i) =>
        setOwn(deltas, name, (settled[i] as PromiseFulfilledResult<State>).value),
      )
      return mergeDeltas ? mergeDeltas(deepFreeze(deltas), state) : union(deltas)
    } finally {
      ctx.signal.removeEventListener('abort', abort)
    }
  }
}

function branchDelta(raw: unknown, branch: string): State {
  if (raw === undefined || raw === null) return {}
  if (!isPlainObject(raw))
    throw new TypeError(`parallel branch "${branch}" returned a non-object delta`)
  const delta = copyJson(raw) as State
  if (Object.hasOwn(delta, '__yield')) {
    throw new KernelError(`parallel branch "${branch}" tried to yield; branches cannot yield`)
  }
  return delta
}

function union(deltas: Record<string, State>): State {
  const out: State = {}
  const owner = new Map<string, string>()
  for (const [branch, delta] of Object.entries(deltas)) {
    for (const [key, value] of Object.entries(delta)) {
      const first = owner.get(key)
      if (first !== undefined) throw new ParallelConflictError(key, [first, branch])
      owner.set(key, branch)
      setOwn(out, key, value)
    }
  }
  return out
}
