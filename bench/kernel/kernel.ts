import { always, end, Graph, type GraphOptions, type RunResult, type Step } from '@weave/kernel'
import { PgStore } from '@weave/pgstore'
import type pg from 'pg'
import { STEP_NAMES, STEPS, type BenchState } from './state.js'

/** The graph's name: its checkpoints live in namespace `checkpoint:bench`. */
export const GRAPH_NAME = 'bench'

/**
 * The 5-step linear graph. `stepThree` replaces step 3 (the pause/resume graph's yielding step).
 * Checkpoint writes are "required" so a failing write stops the run instead of being skipped.
 */
export function buildGraph(options: GraphOptions = {}, stepThree?: Step): Graph {
  const g = new Graph(GRAPH_NAME, STEP_NAMES[0], { checkpointPolicy: 'required', ...options })
  STEP_NAMES.forEach((name, i) => {
    const step = i === 2 && stepThree ? stepThree : STEPS[i]!
    const next = STEP_NAMES[i + 1]
    g.addStep(name, step, next ? always(next) : end())
  })
  return g
}

/**
 * Asserts that a run stopped as expected; a run that stopped early must not count as a run.
 * @throws Error with the run's stop reason and error
 */
export function expectStop(r: RunResult, reason: RunResult['stopReason']): RunResult {
  if (r.stopReason !== reason) {
    throw new Error(`kernel run ${r.runId} stopped "${r.stopReason}", expected "${reason}"`, {
      cause: r.error,
    })
  }
  return r
}

/** Runs the in-memory graph (no store) on `input`. */
export function kernelMemory(): (input: BenchState) => Promise<RunResult> {
  const g = buildGraph()
  return async (input) => expectStop(await g.run(input), 'completed')
}

/** Runs the graph with a checkpoint in Postgres after every step, history off or kept whole. */
export function kernelPg(
  pool: pg.Pool,
  history: boolean,
): (input: BenchState, runId?: string) => Promise<RunResult> {
  const g = buildGraph({ checkpointHistory: history ? -1 : 0 })
  const store = new PgStore({ pool })
  return async (input, runId) => expectStop(await g.run(input, { store, runId }), 'completed')
}

// Yields until the resume input has set `approved`; on the re-run it does step 3's work.
const approvalStep: Step = (state) =>
  state.approved === undefined ? { __yield: true } : STEPS[2]!(state)

/**
 * A pause/resume cycle: run until step 3 yields, then resume with `{ approved: true }` from a
 * newly built Graph and a new PgStore over the same pool, as another process would, to the end.
 */
export async function kernelCycle(pool: pg.Pool, input: BenchState): Promise<RunResult> {
  const first = buildGraph({}, approvalStep)
  const paused = expectStop(await first.run(input, { store: new PgStore({ pool }) }), 'yielded')
  const second = buildGraph({}, approvalStep)
  const store = new PgStore({ pool })
  return expectStop(await second.resume(paused.runId, { approved: true }, { store }), 'completed')
}
