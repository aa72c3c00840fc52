import type { Delta, State } from './json.js'
import type { Store } from './store.js'

/** What a step, router or hook knows about the step being run. */
export interface StepContext {
  signal: AbortSignal
  runId: string
  graph: string
  step: string
  /** 1 for a run's first step, +1 per step started, continuing across resumes. */
  seq: number
  store?: Store
  /** Set only for the step that `resume`/`resumeAt` re-runs: that call's input. */
  resumeInput?: Readonly<State>
}

/** A unit of work: reads the state, returns only what it changes. */
export type Step = (state: Readonly<State>, ctx: StepContext) => Delta | Promise<Delta>

/** Runs before or after every step of its graph; vetoes the step by throwing. */
export type StepHook = (
  step: string,
  state: Readonly<State>,
  ctx: StepContext,
) => void | Promise<void>
