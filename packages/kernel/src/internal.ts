import type { StepContext } from './context.js'

/** A run's step budget, shared by reference with its nested subgraph runs. */
export interface Budget {
  remaining: number
}

/**
 * Where a context carries the budget of the run that built it (null: the run has none). A
 * symbol the package does not export: steps do not see it in keys or JSON, and a context spread
 * into a new one (a parallel branch's) keeps it. A property rather than a WeakMap entry because
 * it is set once per step on the hot path.
 */
export const contextBudget: unique symbol = Symbol('weave.kernel.budget')

/** A StepContext as the run loop builds it. */
export type RunStepContext = StepContext & { [contextBudget]?: Budget | null }

/** The budget of the run that built `ctx`; undefined when `ctx` was not built by a run. */
export function budgetOf(ctx: StepContext): Budget | null | undefined {
  return (ctx as RunStepContext)[contextBudget]
}

/** A context for part of a step (a parallel branch) that shares the step's run budget. */
export function deriveContext(ctx: StepContext, patch: Partial<StepContext>): StepContext {
  return { ...ctx, ...patch }
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
