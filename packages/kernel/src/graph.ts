import {
  checkpointNamespace,
  historyKey,
  isHistoryKeyOf,
  parseCheckpoint,
  type CheckpointInfo,
  type LoadedCheckpoint,
  type ReadPurpose,
} from './checkpoint.js'
import type { Step, StepHook } from './context.js'
import {
  CheckpointNotFoundError,
  CorruptCheckpointError,
  GraphValidationError,
  KernelError,
} from './errors.js'
import { inheritedBudget, type Budget, type InternalRunOptions } from './internal.js'
import type { State } from './json.js'
import { copyState, deepFreeze } from './json-copy.js'
import { freezeMergeConfig, mergeSettled, type MergeConfig } from './merge.js'
import { END, routerEdges, type Edge, type Router } from './routers.js'
import {
  runLoop,
  type Invocation,
  type LoopGraph,
  type RunResult,
  type StepEvent,
} from './run-loop.js'
import type { Store } from './store.js'
import { streamLoop } from './stream.js'

/** Options of a Graph (docs/kernel.md, Graph). */
export interface GraphOptions {
  /** Steps one invocation may start; default 100. */
  maxIterations?: number
  /** Steps a root run may take across all its invocations and subgraphs. */
  stepBudget?: number
  /** "best-effort" (default) ignores a failed checkpoint write; "required" stops the run. */
  checkpointPolicy?: 'best-effort' | 'required'
  /** History entries kept per run: 0 none (default), n the newest n, -1 all. */
  checkpointHistory?: number
  merge?: MergeConfig
  hooks?: { before?: StepHook[]; after?: StepHook[] }
}

/** Options of `run` and `stream`. */
export interface RunOptions {
  store?: Store
  /** Default: crypto.randomUUID(). */
  runId?: string
  signal?: AbortSignal
}

/** Options of `resume`. */
export interface ResumeOptions {
  store: Store
  signal?: AbortSignal
  /**
   * The seq of the checkpoint `input` was meant for. When the latest checkpoint has moved on
   * (a resume already applied it, then the caller crashed), the run continues from its latest
   * checkpoint without `input`, so a retried resume never merges its input twice.
   */
  atSeq?: number
}

/** Options of `resumeAt` (fork). */
export interface ResumeAtOptions extends ResumeOptions {
  newRunId?: string
}

/** A step of the topology with its outgoing edges; `dynamic` when its router is a custom function. */
export interface StepInfo {
  name: string
  edges: Edge[]
  dynamic: boolean
}

const CONTROL_KEYS = ['__yield', '__yield_phase', '__yield_reason']
const BUDGET_KEY = '__budget_remaining'

/** A graph of named steps joined by routers. Holds no per-run data: runs may overlap. */
export class Graph {
  readonly #steps = new Map<string, { step: Step; router?: Router }>()
  readonly #options: GraphOptions
  #validated = false
  /** What the loop needs of this graph; rebuilt after addStep. */
  #loop: LoopGraph | undefined

  constructor(
    readonly name: string,
    readonly entry: string,
    options: GraphOptions = {},
  ) {
    this.#options = {
      ...options,
      hooks: {
        before: [...(options.hooks?.before ?? [])],
        after: [...(options.hooks?.after ?? [])],
      },
    }
    if (options.merge) freezeMergeConfig(options.merge)
  }

  /**
   * Registers a step; without a router the step is terminal.
   * @throws GraphValidationError for an empty name, a name containing "/", or a duplicate
   */
  addStep(name: string, step: Step, after?: Router): this {
    if (typeof name !== 'string' || name === '')
      throw new GraphValidationError(['step name is empty'])
    if (name.includes('/')) throw new GraphValidationError([`step name "${name}" contains "/"`])
    if (this.#steps.has(name))
      throw new GraphValidationError([`step "${name}" is already registered`])
    this.#steps.set(name, after ? { step, router: after } : { step })
    this.#validated = false
    this.#loop = undefined
    return this
  }

  /**
   * Checks the graph and its options, reporting every problem at once.
   * @throws GraphValidationError listing all problems
   */
  validate(): void {
    if (this.#validated) return
    const problems: string[] = []
    const o = this.#options
    if (this.name === '') problems.push('graph name is empty')
    if (
      o.maxIterations !== undefined &&
      !(Number.isInteger(o.maxIterations) && o.maxIterations >= 1)
    ) {
      problems.push(`option maxIterations must be an integer ≥ 1, got ${String(o.maxIterations)}`)
    }
    if (o.stepBudget !== undefined && !(Number.isInteger(o.stepBudget) && o.stepBudget >= 0)) {
      problems.push(`option stepBudget must be an integer ≥ 0, got ${String(o.stepBudget)}`)
    }
    if (
      o.checkpointHistory !== undefined &&
      !(Number.isInteger(o.checkpointHistory) && o.checkpointHistory >= -1)
    ) {
      problems.push(
        `option checkpointHistory must be an integer ≥ -1, got ${String(o.checkpointHistory)}`,
      )
    }
    if (!this.#steps.has(this.entry)) problems.push(`entry step "${this.entry}" is not registered`)
    for (const [name, { router }] of this.#steps) {
      const targets = new Set((router && routerEdges(router)?.map((e) => e.to)) ?? [])
      for (const to of targets) {
        if (to !== END && !this.#steps.has(to))
          problems.push(`step "${name}" routes to unregistered step "${to}"`)
      }
    }
    if (problems.length > 0) throw new GraphValidationError(problems)
    this.#validated = true
  }

  /** The steps in insertion order with the edges their built-in routers can take. */
  topology(): StepInfo[] {
    return [...this.#steps].map(([name, { router }]) => {
      if (!router) return { name, edges: [], dynamic: false }
      const edges = routerEdges(router)
      return edges
        ? { name, edges: edges.map((e) => ({ ...e })), dynamic: false }
        : { name, edges: [], dynamic: true }
    })
  }

  /**
   * Runs the graph from its entry until a stop; every stop resolves a RunResult.
   * @throws GraphValidationError, TypeError for misuse (bad input, empty runId)
   */
  run(input: State, o: RunOptions = {}): Promise<RunResult> {
    // Not an async function: one promise per run fewer on the hot path; misuse still rejects.
    try {
      return runLoop(this.#loopGraph(), this.#startRun(input, o))
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /** Runs lazily, one step per event pulled; the last event carries the result. */
  stream(input: State, o: RunOptions = {}): AsyncIterable<StepEvent> {
    return streamLoop(this.#loopGraph.bind(this), () => this.#startRun(input, o))
  }

  /**
   * Continues a run from its latest checkpoint with `input` merged into its state.
   * @throws GraphValidationError, TypeError, CheckpointNotFoundError, CorruptCheckpointError,
   *   UnsupportedCheckpointSchemaError
   */
  async resume(runId: string, input: State, o: ResumeOptions): Promise<RunResult> {
    const inv = await this.#startResume(runId, input, o, undefined)
    return runLoop(this.#loopGraph(), inv)
  }

  /**
   * Forks history entry `seq` of a run into a new run, which continues with `input` merged in.
   * @throws KernelError when newRunId equals runId; the errors of `resume`
   */
  async resumeAt(runId: string, seq: number, input: State, o: ResumeAtOptions): Promise<RunResult> {
    const inv = await this.#startResume(runId, input, o, { seq, newRunId: o?.newRunId })
    return runLoop(this.#loopGraph(), inv)
  }

  /**
   * The run's history entries by ascending seq; corrupt entries are skipped, unknown runs give [].
   * @throws TypeError without a store; UnsupportedCheckpointSchemaError for a too-new entry
   */
  async history(runId: string, o: { store: Store }): Promise<CheckpointInfo[]> {
    requireStore(o)
    const ns = checkpointNamespace(this.name)
    const keys = (await o.store.list(ns, `${runId}/`)).filter((k) => isHistoryKeyOf(runId, k))
    const infos: CheckpointInfo[] = []
    for (const key of keys) {
      const raw = await o.store.get(ns, key)
      if (raw === undefined) continue
      let cp: LoadedCheckpoint
      try {
        cp = parseCheckpoint(raw, runId, 'history', Number(key.slice(-12)))
      } catch (err) {
        if (err instanceof CorruptCheckpointError) continue
        throw err
      }
      const info: CheckpointInfo = {
        seq: cp.seq,
        lastStep: cp.lastStep,
        status: cp.status,
        savedAt: cp.savedAt,
      }
      if (cp.yieldPhase) info.yieldPhase = cp.yieldPhase
      infos.push(info)
    }
    return infos.sort((a, b) => a.seq - b.seq)
  }

  #loopGraph(): LoopGraph {
    this.validate()
    if (this.#loop) return this.#loop
    const o = this.#options
    const g: LoopGraph = {
      name: this.name,
      steps: this.#steps,
      maxIterations: o.maxIterations ?? 100,
      checkpointPolicy: o.checkpointPolicy ?? 'best-effort',
      checkpointHistory: o.checkpointHistory ?? 0,
      before: o.hooks?.before ?? [],
      after: o.hooks?.after ?? [],
    }
    if (o.merge) g.merge = o.merge
    this.#loop = g
    return g
  }

  #startRun(input: State, o: RunOptions & InternalRunOptions): Invocation {
    this.validate()
    const runId = o.runId ?? globalThis.crypto.randomUUID()
    requireRunId(runId, 'runId')
    const state = copyState(input, 'run input')
    const budget = this.#budgetFor(state, o)
    const inv: Invocation = {
      runId,
      state: deepFreeze(stamp(state, budget)),
      budget,
      seq: 0,
      start: { kind: 'run', step: this.entry },
    }
    if (o.store) inv.store = o.store
    if (o.signal) inv.signal = o.signal
    return inv
  }

  async #startResume(
    runId: string,
    input: State,
    o: ResumeOptions & InternalRunOptions,
    fork: { seq: number; newRunId: string | undefined } | undefined,
  ): Promise<Invocation> {
    this.validate()
    requireRunId(runId, 'runId')
    requireStore(o)
    let resumeInput = deepFreeze(copyState(input, 'resume input'))
    if (o.atSeq !== undefined && !(Number.isInteger(o.atSeq) && o.atSeq >= 0))
      throw new TypeError(`atSeq must be an integer ≥ 0, got ${String(o.atSeq)}`)
    let targetRunId = runId
    if (fork) {
      if (!Number.isInteger(fork.seq) || fork.seq < 0)
        throw new TypeError(`seq must be an integer ≥ 0, got ${String(fork.seq)}`)
      targetRunId = fork.newRunId ?? globalThis.crypto.randomUUID()
      requireRunId(targetRunId, 'newRunId')
      if (targetRunId === runId)
        throw new KernelError(`newRunId must differ from the forked run's id ${runId}`)
    }
    const cp = await this.#readCheckpoint(o.store, runId, fork ? 'resumeAt' : 'resume', fork?.seq)
    if (!fork && o.atSeq !== undefined && o.atSeq !== cp.seq) resumeInput = deepFreeze({})

    const delta: State = { ...resumeInput }
    for (const key of CONTROL_KEYS) delete delta[key]
    const merged = mergeSettled(cp.state, delta, this.#options.merge)
    if (cp.status === 'failed') {
      delete merged.__error
      delete merged.__failed_step
    }
    const budget = this.#budgetFor(merged, o)
    const rerun =
      cp.status === 'failed' || (cp.status === 'yielded' && cp.yieldPhase !== 'after_step')
    const inv: Invocation = {
      runId: targetRunId,
      store: o.store,
      state: deepFreeze(stamp(merged, budget)),
      budget,
      seq: cp.seq,
      start: rerun
        ? { kind: 'run', step: cp.lastStep, resumeInput }
        : { kind: 'route', step: cp.lastStep },
    }
    if (o.signal) inv.signal = o.signal
    return inv
  }

  async #readCheckpoint(
    store: Store,
    runId: string,
    purpose: ReadPurpose,
    seq?: number,
  ): Promise<LoadedCheckpoint> {
    const ns = checkpointNamespace(this.name)
    const raw = await store.get(ns, seq === undefined ? runId : historyKey(runId, seq))
    if (raw === undefined) throw new CheckpointNotFoundError(runId, seq)
    return parseCheckpoint(raw, runId, purpose, seq ?? 0)
  }

  /** A nested run shares its parent's budget; a root run takes its state's, else stepBudget. */
  #budgetFor(state: State, o: InternalRunOptions): Budget | null {
    if (inheritedBudget in o) return o[inheritedBudget] ?? null
    const fromState = state[BUDGET_KEY]
    if (typeof fromState === 'number' && Number.isFinite(fromState)) {
      return { remaining: Math.max(0, Math.floor(fromState)) }
    }
    return this.#options.stepBudget === undefined ? null : { remaining: this.#options.stepBudget }
  }
}

function stamp(state: State, budget: Budget | null): State {
  if (budget) state[BUDGET_KEY] = budget.remaining
  return state
}

function requireRunId(runId: unknown, what: string): void {
  if (typeof runId !== 'string' || runId === '')
    throw new TypeError(`${what} must be a non-empty string`)
}

function requireStore(o: { store?: Store } | undefined): asserts o is { store: Store } {
  if (!o?.store) throw new TypeError('a store is required')
}
