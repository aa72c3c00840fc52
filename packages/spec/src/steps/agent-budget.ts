import { AsyncLocalStorage } from 'node:async_hooks'
import type { Json, State } from '@weave/kernel'
import { canonicalJson } from '../canonical-json.js'
import { isJsonObject } from '../json-value.js'

/** What a conversation's model calls used, as a tool's child run reports it to its agent. */
export interface SpentUsage {
  inputTokens: number
  outputTokens: number
  /** Dollars, when the child's agents have prices for their models. */
  usd?: number
}

/** What is left of an agent's budgets, handed to the agents of a subgraph tool's child run. */
export interface BudgetLeft {
  tokens?: number
  usd?: number
}

// The kernel runs a subgraph tool's child inside the tool call, so the budget the calling agent
// has left reaches the child's agent steps through the call's async context, at any depth.
const inherited = new AsyncLocalStorage<BudgetLeft>()

/** Runs `fn` (a child run) with `left` as the budget its agent steps may not pass. */
export function withBudgetLeft<T>(left: BudgetLeft, fn: () => Promise<T>): Promise<T> {
  return inherited.run(left, fn)
}

/** The budget a calling agent left to this child run, or undefined outside a subgraph tool. */
export function inheritedBudget(): BudgetLeft | undefined {
  return inherited.getStore()
}

/** The smaller of an own limit and an inherited one; undefined when neither is set. */
export function tighter(own: number | undefined, left: number | undefined): number | undefined {
  if (own === undefined) return left
  return left === undefined ? own : Math.min(own, left)
}

const isAmount = (v: Json | undefined): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0

/**
 * What the agent steps of a finished child run used: the usage of every conversation in its
 * final state that the child wrote (a value passed in unchanged from its input is not the
 * child's spending). A conversation is recognised by its shape, `{ messages, usage: {
 * inputTokens, outputTokens, usd? }, turns }`.
 */
export function childUsage(input: State, final: State): SpentUsage | undefined {
  let total: SpentUsage | undefined
  for (const [key, value] of Object.entries(final)) {
    if (!isJsonObject(value) || !Array.isArray(value.messages) || !isJsonObject(value.usage)) {
      continue
    }
    const { inputTokens, outputTokens, usd } = value.usage
    if (!isAmount(inputTokens) || !isAmount(outputTokens) || !isAmount(value.turns)) continue
    if (usd !== undefined && !isAmount(usd)) continue
    const passed = input[key]
    if (passed !== undefined && canonicalJson(passed) === canonicalJson(value)) continue
    total = addSpent(total, { inputTokens, outputTokens, ...(usd === undefined ? {} : { usd }) })
  }
  return total
}

/** Two usages summed; dollars are kept when either has them. */
export function addSpent(a: SpentUsage | undefined, b: SpentUsage): SpentUsage {
  if (a === undefined) return b
  const usd = a.usd === undefined && b.usd === undefined ? undefined : (a.usd ?? 0) + (b.usd ?? 0)
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(usd === undefined ? {} : { usd }),
  }
}
