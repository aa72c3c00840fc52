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
import { contextBudget, type Budget, type RunStepContext } from './internal.js'
import type { Json, State } from './json.js'
import { copyJson, deepFreeze, isPlainObject, setOwn } from './json-copy.js'
import { mergeSettled, type MergeConfig } from './merge.js'
import { END, type Router } from './routers.js'
import type { Store } from './store.js'

/** Why a run stopped. */
export type StopReason =
  'completed' | 'yielded' | 'max_iter' | 'budget' | 'error' | 'hook_abort' | 'cancelled'

/** Why a yielded run stopped: its phase and the reason its step gave (`__yield_reason`). */
export interface YieldInfo {
  phase: YieldPhase
  /** The yielding step's `__yield_reason`, or null when it gave none. */
  reason: Json
}

/** What every stop of a run resolves with. */
export interface RunResult {
  runId: string
  state: State
  lastStep: string
  yielded: boolean
  steps: number
  stopReason: StopReason
  /** The seq of the run's latest checkpoint when it stopped (0 when it has none). */
  seq: number
  /** Set when the run yielded. */
  yield?: YieldInfo
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

const CONTROL_KEYS = ['__yield', '__yield_phase', '__yield_reason', '__budget_remaining'] as const
const BUDGET_KEY = '__budget_remaining'
const neverAborted = new AbortController().signal

/** Runs the run loop of docs/kernel.md until a stop; never rejects (every stop is a RunResult). */
export function runLoop(g: LoopGraph, inv: Invocation, emit?: Emit): Promise<RunResult> {
  return new Loop(g, inv, emit).run()
}

/**
 * One invocation's mutable progress. A class rather than closures: the loop is the kernel's hot
 * path and this keeps per-run allocations to one object (bench/kernel measures it).
 */
class Loop {
  readonly ns: string
  readonly signal: AbortSignal
  state: State
  seq: number
  /** The seq of the latest checkpoint known written (the one resumed from, then each write). */
  writtenSeq: number
  steps = 0

  constructor(
    readonly g: LoopGraph,
    readonly inv: Invocation,
    readonly emit: Emit | undefined,
  ) {
    this.ns = `checkpoint:${g.name}`
    this.signal = inv.signal ?? neverAborted
    this.state = inv.state
    this.seq = inv.seq
    this.writtenSeq = inv.seq
  }

  async run(): Promise<RunResult> {
    const { g, inv, signal } = this
    let current = inv.start.step
    let resumeInput = inv.start.kind === 'run' ? inv.start.resumeInput : undefined

    if (inv.start.kind === 'route') {
      if (!g.steps.has(current)) return this.stop('error', current, new StepNotFoundError(current))
      let next = this.route(current, this.context(current, this.seq))
      if (next instanceof Promise) next = await next
      if (typeof next !== 'string') return next
      current = next
    }

    for (;;) {
      const s = current
      if (signal.aborted) return this.stop('cancelled', s, new CancelledError())
      if (this.steps >= g.maxIterations) {
        return this.stop('max_iter', s, new MaxIterationsError(g.maxIterations))
      }
      if (inv.budget) {
        if (inv.budget.remaining <= 0) return this.stop('budget', s, new BudgetExhaustedError())
        inv.budget.remaining -= 1
        this.state = withBudget(this.state, inv.budget)
      }
      const entry = g.steps.get(s)
      if (!entry) return this.stop('error', s, new StepNotFoundError(s))
      this.steps += 1
      this.seq += 1
      const ctx = this.context(s, this.seq)
      if (resumeInput) ctx.resumeInput = resumeInput
      resumeInput = undefined

      if (g.before.length > 0) {
        try {
          for (const hook of g.before) await hook(s, this.state, ctx)
        } catch (err) {
          return this.stop('hook_abort', s, asError(err))
        }
      }

      let delta: Record<string, Json>
      let yieldPhase: YieldPhase | undefined
      let yieldReason: Json = null
      try {
        const raw = await entry.step(this.state, ctx)
        ;({ delta, yieldPhase, yieldReason } = normaliseDelta(raw, s))
        // A merge policy that throws or returns no JSON fails the step as if it had thrown.
        this.state = mergeFrozen(this.state, delta, g.merge, inv.budget)
      } catch (err) {
        this.state = deepFreeze({
          ...withBudget(this.state, inv.budget),
          __error: messageOf(err),
          __failed_step: s,
        })
        await this.checkpoint(s, 'failed').catch(() => undefined)
        if (signal.aborted) {
          return this.stop('cancelled', s, new CancelledError('run cancelled', { cause: err }))
        }
        if (isBudgetError(err)) return this.stop('budget', s, err as Error)
        return this.stop('error', s, asError(err))
      }

      if (g.after.length > 0) {
        try {
          for (const hook of g.after) await hook(s, this.state, ctx)
        } catch (err) {
          return this.stop('hook_abort', s, asError(err))
        }
      }

      const status: CheckpointStatus = yieldPhase ? 'yielded' : 'step_done'
      if (inv.store) {
        try {
          await this.checkpoint(s, status, yieldPhase)
        } catch (err) {
          if (g.checkpointPolicy === 'required') return this.stop('error', s, err as Error)
        }
      }

      if (this.emit) {
        const event = { type: 'step', step: s, seq: this.seq, status, state: this.state } as const
        if (!(await this.emit(event))) {
          return this.stop(
            'cancelled',
            s,
            new CancelledError('the stream consumer stopped reading'),
          )
        }
      }

      if (yieldPhase)
        return this.stop('yielded', s, undefined, { phase: yieldPhase, reason: yieldReason })

      let next = this.route(s, ctx)
      if (next instanceof Promise) next = await next
      if (typeof next !== 'string') return next
      current = next
    }
  }

  stop(stopReason: StopReason, lastStep: string, error?: Error, yieldInfo?: YieldInfo): RunResult {
    const result: RunResult = {
      runId: this.inv.runId,
      state: this.state,
      lastStep,
      yielded: stopReason === 'yielded',
      steps: this.steps,
      stopReason,
      seq: this.writtenSeq,
    }
    if (yieldInfo) result.yield = yieldInfo
    if (error) result.error = error
    return result
  }

  context(step: string, seq: number): StepContext {
    return new LoopContext(
      this.signal,
      this.inv.runId,
      this.g.name,
      step,
      seq,
      this.inv.store,
      this.inv.budget,
    )
  }

  async checkpoint(step: string, status: CheckpointStatus, phase?: YieldPhase): Promise<void> {
    const { store, runId } = this.inv
    if (!store) return
    const value = encodeCheckpoint({
      runId,
      graph: this.g.name,
      seq: this.seq,
      lastStep: step,
      status,
      yieldPhase: phase,
      state: this.state,
      savedAt: new Date(),
    })
    await writeCheckpoint(store, this.ns, runId, this.seq, value, this.g.checkpointHistory !== 0)
    this.writtenSeq = this.seq
    if (this.g.checkpointHistory > 0) {
      await pruneHistory(store, this.ns, runId, this.g.checkpointHistory).catch(() => undefined)
    }
  }

  /** Step 12 of the loop: the next step, or a stop. */
  route(step: string, ctx: StepContext): string | RunResult | Promise<string | RunResult> {
    const router = this.g.steps.get(step)?.router
    if (!router) return this.stop('completed', step)
    let next: unknown
    try {
      next = router(this.state, ctx)
    } catch (err) {
      return this.stop('error', step, asError(err))
    }
    // Built-in routers answer synchronously; only a router that returns a promise costs a tick.
    if (next instanceof Promise) {
      return next.then(
        (resolved: unknown) => this.target(step, resolved),
        (err: unknown) => this.stop('error', step, asError(err)),
      )
    }
    return this.target(step, next)
  }

  /** Checks a router's answer: END completes, a registered step continues, anything else fails. */
  target(step: string, next: unknown): string | RunResult {
    if (typeof next !== 'string') {
      const problem = `router of step "${step}" returned ${typeof next}, not a step name`
      return this.stop('error', step, new TypeError(problem))
    }
    if (next === END) return this.stop('completed', step)
    if (!this.g.steps.has(next)) return this.stop('error', step, new StepNotFoundError(next))
    return next
  }
}

/** A step's context; a class so every context has one shape (the loop builds one per step). */
class LoopContext implements RunStepContext {
  resumeInput?: Readonly<State>;
  [contextBudget]: Budget | null

  constructor(
    readonly signal: AbortSignal,
    readonly runId: string,
    readonly graph: string,
    readonly step: string,
    readonly seq: number,
    readonly store: Store | undefined,
    budget: Budget | null,
  ) {
    this[contextBudget] = budget
  }
}

/** Validates and copies what a step returned; control keys are read here and removed. */
function normaliseDelta(
  raw: unknown,
  step: string,
): { delta: Record<string, Json>; yieldPhase?: YieldPhase; yieldReason: Json } {
  if (raw === undefined || raw === null) return { delta: {}, yieldReason: null }
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
  const yieldPhase: YieldPhase | undefined =
    raw.__yield === true
      ? raw.__yield_phase === 'after_step'
        ? 'after_step'
        : 'mid_step'
      : undefined
  const hasControlKeys =
    raw.__yield !== undefined ||
    raw.__yield_phase !== undefined ||
    raw.__yield_reason !== undefined ||
    raw.__budget_remaining !== undefined
  const source = hasControlKeys ? withoutControlKeys(raw) : raw
  // A reason is kept only with a yield; it is copied like state, so it is plain, frozen JSON.
  const yieldReason =
    yieldPhase && raw.__yield_reason !== undefined ? (copyJson(raw.__yield_reason) ?? null) : null
  return { delta: copyJson(source) as Record<string, Json>, yieldPhase, yieldReason }
}

function withoutControlKeys(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(raw)) {
    if (!(CONTROL_KEYS as readonly string[]).includes(key)) setOwn(out, key, raw[key])
  }
  return out
}

/**
 * Merges a frozen delta into the state and freezes the result. Only the merged keys can hold
 * unfrozen values; everything else is already deeply frozen.
 * @throws what a merge policy throws; TypeError when a policy returns a value with no JSON form
 */
function mergeFrozen(
  state: State,
  delta: Record<string, Json>,
  config: MergeConfig | undefined,
  budget: Budget | null,
): State {
  const next = mergeSettled(state, delta, config)
  if (budget) setOwn(next, BUDGET_KEY, budget.remaining)
  return Object.freeze(next)
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
