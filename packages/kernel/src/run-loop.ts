import {
  encodeCheckpoint,
  pruneHistory,
  writeCheckpoint,
  type CheckpointStatus,
  type YieldPhase,
} from './checkpoint.js'
import type { Step, StepContext, StepHook } from './context.js'
import {
  BudgetExhaustedError,
  CancelledError,
  KernelError,
  MaxIterationsError,
  StepNotFoundError,
} from './errors.js'
import { bindBudget, type Budget } from './internal.js'
import type { Json, State } from './json.js'
import { copyJson, deepFreeze, isPlainObject, setOwn } from './json-copy.js'
import { merge, type MergeConfig } from './merge.js'
import { END, type Router } from './routers.js'
import type { Store } from './store.js'

/** Why a run stopped. */
export type StopReason =
  'completed' | 'yielded' | 'max_iter' | 'budget' | 'error' | 'hook_abort' | 'cancelled'

/** What every stop of a run resolves with. */
export interface RunResult {
  runId: string
  state: State
  lastStep: string
  yielded: boolean
  steps: number
  stopReason: StopReason
  error?: Error
}

/** One event of `Graph.stream`: a step reached its checkpoint, or the run stopped (last). */
export type StepEvent =
  | { type: 'step'; step: string; seq: number; status: 'step_done' | 'yielded'; state: State }
  | { type: 'result'; result: RunResult }

/** What the loop needs of a graph. */
export interface LoopGraph {
  name: string
  steps: ReadonlyMap<string, { step: Step; router?: Router }>
  maxIterations: number
  checkpointPolicy: 'best-effort' | 'required'
  checkpointHistory: number
  merge?: MergeConfig
  before: readonly StepHook[]
  after: readonly StepHook[]
}

/** One invocation of the loop: where it starts and with what. */
export interface Invocation {
  runId: string
  store?: Store
  signal?: AbortSignal
  /** Deeply frozen. */
  state: State
  budget: Budget | null
  /** The seq of the last checkpoint (0 for a new run). */
  seq: number
  /** `run`: start by running `step`; `route`: start by evaluating `step`'s router (resume). */
  start:
    { kind: 'run'; step: string; resumeInput?: Readonly<State> } | { kind: 'route'; step: string }
}

/** Emits a step event and resolves true to go on, false when the consumer has left. */
export type Emit = (event: StepEvent & { type: 'step' }) => Promise<boolean>

const CONTROL_KEYS = ['__yield', '__yield_phase', '__budget_remaining'] as const
const BUDGET_KEY = '__budget_remaining'
const neverAborted = new AbortController().signal

/** Runs the loop of KERNEL.md §4 until a stop; never rejects (every stop is a RunResult). */
export async function runLoop(g: LoopGraph, inv: Invocation, emit?: Emit): Promise<RunResult> {
  const ns = `checkpoint:${g.name}`
  const signal = inv.signal ?? neverAborted
  const withHistory = g.checkpointHistory !== 0
  let state = inv.state
  let seq = inv.seq
  let steps = 0
  let current = inv.start.step
  let resumeInput = inv.start.kind === 'run' ? inv.start.resumeInput : undefined

  const stop = (stopReason: StopReason, lastStep: string, error?: Error): RunResult => {
    const result: RunResult = {
      runId: inv.runId,
      state,
      lastStep,
      yielded: stopReason === 'yielded',
      steps,
      stopReason,
    }
    if (error) result.error = error
    return result
  }

  const context = (step: string, stepSeq: number): StepContext => {
    const ctx: StepContext = { signal, runId: inv.runId, graph: g.name, step, seq: stepSeq }
    if (inv.store) ctx.store = inv.store
    bindBudget(ctx, inv.budget)
    return ctx
  }

  const checkpoint = async (step: string, status: CheckpointStatus, phase?: YieldPhase) => {
    if (!inv.store) return
    const value = encodeCheckpoint({
      runId: inv.runId,
      graph: g.name,
      seq,
      lastStep: step,
      status,
      yieldPhase: phase,
      state,
      savedAt: new Date(),
    })
    await writeCheckpoint(inv.store, ns, inv.runId, seq, value, withHistory)
    if (g.checkpointHistory > 0) {
      await pruneHistory(inv.store, ns, inv.runId, g.checkpointHistory).catch(() => undefined)
    }
  }

  // Returns the next step, or a stop (step 12 of the loop).
  const route = async (step: string, ctx: StepContext): Promise<string | RunResult> => {
    const router = g.steps.get(step)?.router
    if (!router) return stop('completed', step)
    let next: unknown
    try {
      next = await router(state, ctx)
    } catch (err) {
      return stop('error', step, asError(err))
    }
    if (typeof next !== 'string') {
      return stop(
        'error',
        step,
        new TypeError(`router of step "${step}" returned ${typeof next}, not a step name`),
      )
    }
    if (next === END) return stop('completed', step)
    if (!g.steps.has(next)) return stop('error', step, new StepNotFoundError(next))
    return next
  }

  if (inv.start.kind === 'route') {
    if (!g.steps.has(current)) return stop('error', current, new StepNotFoundError(current))
    const next = await route(current, context(current, seq))
    if (typeof next !== 'string') return next
    current = next
  }

  for (;;) {
    const s = current
    if (signal.aborted) return stop('cancelled', s, new CancelledError())
    if (steps >= g.maxIterations)
      return stop('max_iter', s, new MaxIterationsError(g.maxIterations))
    if (inv.budget) {
      if (inv.budget.remaining <= 0) return stop('budget', s, new BudgetExhaustedError())
      inv.budget.remaining -= 1
      state = withBudget(state, inv.budget)
    }
    const entry = g.steps.get(s)
    if (!entry) return stop('error', s, new StepNotFoundError(s))
    steps += 1
    seq += 1
    const ctx = context(s, seq)
    if (resumeInput) ctx.resumeInput = resumeInput
    resumeInput = undefined

    try {
      for (const hook of g.before) await hook(s, state, ctx)
    } catch (err) {
      return stop('hook_abort', s, asError(err))
    }

    let delta: Record<string, Json>
    let yieldPhase: YieldPhase | undefined
    try {
      const raw = await entry.step(state, ctx)
      ;({ delta, yieldPhase } = normaliseDelta(raw, s))
    } catch (err) {
      state = deepFreeze({
        ...withBudget(state, inv.budget),
        __error: messageOf(err),
        __failed_step: s,
      })
      await checkpoint(s, 'failed').catch(() => undefined)
      if (signal.aborted)
        return stop('cancelled', s, new CancelledError('run cancelled', { cause: err }))
      if (isBudgetError(err)) return stop('budget', s, err as Error)
      return stop('error', s, asError(err))
    }

    state = deepFreeze(withBudget(merge(state, delta, g.merge), inv.budget))

    try {
      for (const hook of g.after) await hook(s, state, ctx)
    } catch (err) {
      return stop('hook_abort', s, asError(err))
    }

    const status: CheckpointStatus = yieldPhase ? 'yielded' : 'step_done'
    try {
      await checkpoint(s, status, yieldPhase)
    } catch (err) {
      if (g.checkpointPolicy === 'required') return stop('error', s, err as Error)
    }

    if (emit && !(await emit({ type: 'step', step: s, seq, status, state }))) {
      return stop('cancelled', s, new CancelledError('the stream consumer stopped reading'))
    }

    if (yieldPhase) return stop('yielded', s)

    const next = await route(s, ctx)
    if (typeof next !== 'string') return next
    current = next
  }
}

/** Validates and copies what a step returned; control keys are read here and removed. */
function normaliseDelta(
  raw: unknown,
  step: string,
): { delta: Record<string, Json>; yieldPhase?: YieldPhase } {
  if (raw === undefined || raw === null) return { delta: {} }
  if (!isPlainObject(raw)) {
    const what = Array.isArray(raw)
      ? 'an array'
      : typeof raw === 'object'
        ? 'a class instance'
        : `a ${typeof raw}`
    throw new TypeError(
      `step "${step}" returned ${what}; a step returns an object of the keys it changes`,
    )
  }
  const copy = copyJson(raw, '') as Record<string, Json>
  const yieldPhase: YieldPhase | undefined =
    copy.__yield === true
      ? copy.__yield_phase === 'after_step'
        ? 'after_step'
        : 'mid_step'
      : undefined
  for (const key of CONTROL_KEYS) delete copy[key]
  return { delta: deepFreeze(copy), yieldPhase }
}

function withBudget(state: State, budget: Budget | null): State {
  if (!budget || state[BUDGET_KEY] === budget.remaining) return state
  const next = { ...state }
  setOwn(next, BUDGET_KEY, budget.remaining)
  return Object.isFrozen(state) ? Object.freeze(next) : next
}

function isBudgetError(err: unknown): boolean {
  return err instanceof KernelError && err.code === 'budget-exhausted'
}

/** Errors pass through as thrown; anything else thrown is wrapped in an Error. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(messageOf(err), { cause: err })
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message
  if (typeof err === 'string') return err
  try {
    return JSON.stringify(err) ?? String(err)
  } catch {
    return String(err)
  }
}
