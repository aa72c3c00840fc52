import { always, END, type Router } from '@weave/kernel'
import { compileExpression, type ExpressionLimits } from './expression.js'
import { isTruthy } from './json-value.js'
import type { Next } from './routing-schema.js'

function branchKey(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/**
 * The kernel router of a step's `next`: none (the run ends) for absent or null, `always` for a
 * name, else an async router evaluating the expressions (`dynamic` in the kernel's topology;
 * the spec's topology has its edges). A null target, or an absent default/else, is END.
 */
export function compileRouter(
  next: Next | undefined,
  limits: ExpressionLimits,
): Router | undefined {
  if (next === undefined || next === null) return undefined
  if (typeof next === 'string') return always(next)
  if ('branch' in next) {
    const expr = compileExpression(next.branch, limits)
    const routes = next.routes
    const fallback = next.default ?? END
    return async (state, ctx) => {
      const key = branchKey(await expr.evaluate(state, ctx.step))
      const target = key !== undefined && Object.hasOwn(routes, key) ? routes[key] : fallback
      return target ?? END
    }
  }
  const clauses = next.when.map((c) => ({ test: compileExpression(c.if, limits), then: c.then }))
  const otherwise = next.else ?? END
  return async (state, ctx) => {
    for (const clause of clauses) {
      if (isTruthy(await clause.test.evaluate(state, ctx.step))) return clause.then ?? END
    }
    return otherwise
  }
}
