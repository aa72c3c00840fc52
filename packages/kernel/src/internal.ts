import type { StepContext } from './context.js'

/** A run's step budget, shared by reference with its nested subgraph runs. */
export interface Budget {
  remaining: number
}

/**
 * The budget of the run a context belongs to (null: the run has none). Kept beside the
 * context rather than on it so steps cannot read or change it.
 */
const contextBudgets = new WeakMap<StepContext, Budget | null>()

/** Records the budget of the run that built `ctx`. */
export function bindBudget(ctx: StepContext, budget: Budget | null): void {
  contextBudgets.set(ctx, budget)
}

/** The budget of the run that built `ctx`; undefined when `ctx` was not built by a run. */
export function budgetOf(ctx: StepContext): Budget | null | undefined {
  return contextBudgets.get(ctx)
}

/** A context for part of a step (a parallel branch) that shares the step's run budget. */
export function deriveContext(ctx: StepContext, patch: Partial<StepContext>): StepContext {
  const derived = { ...ctx, ...patch }
  const budget = budgetOf(ctx)
  if (budget !== undefined) bindBudget(derived, budget)
  return derived
}

/**
 * Run option key through which a subgraph step hands its run's budget to the child run, so the
 * child charges the same count and ignores its own stepBudget. Not part of the public API.
 */
export const inheritedBudget: unique symbol = Symbol('weave.kernel.inheritedBudget')

/** Options a nested run may carry in addition to the public ones. */
export interface InternalRunOptions {
  [inheritedBudget]?: Budget | null
}
