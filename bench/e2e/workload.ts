import { FIELD_NAMES, STEP_NAMES, initialState, type BenchState } from '../kernel/state.js'

/** The 5-step graph of the throughput scenario. */
export const LINEAR_GRAPH = 'bench-linear'

/** The approval graph: `set → approval → set → set`. */
export const APPROVAL_GRAPH = 'bench-approval'

/** The approval step's name, and the state key its outcome is saved under. */
export const APPROVAL_STEP = 'review'

// The same field bench/kernel's steps add, written as a JSONata object constructor.
function setStep(index: number, next: string | null): Record<string, unknown> {
  const field = FIELD_NAMES[index - 1]!
  return {
    kind: 'set',
    values: { [field]: `{ 'done': true, 'index': ${index}, 'note': 'step ${index} finished' }` },
    next,
  }
}

/** Five `set` steps in a row, each adding one field (bench/kernel's workload as a graph spec). */
export function linearSpec(): Record<string, unknown> {
  const steps = Object.fromEntries(
    STEP_NAMES.map((name, i) => [name, setStep(i + 1, STEP_NAMES[i + 1] ?? null)]),
  )
  return { entry: STEP_NAMES[0], steps }
}

/** `step1` (set) → `review` (approval, separation of duties) → `step4` (set) → `step5` (set). */
export function approvalSpec(): Record<string, unknown> {
  return {
    entry: 'step1',
    steps: {
      step1: setStep(1, APPROVAL_STEP),
      [APPROVAL_STEP]: {
        kind: 'approval',
        title: 'Release report {{ request.id }}?',
        details: "{ 'priority': request.priority, 'tags': request.tags }",
        separationOfDuties: true,
        next: 'step4',
      },
      step4: setStep(4, 'step5'),
      step5: setStep(5, null),
    },
  }
}

/** A run's ~2 KB input: bench/kernel's initial state. */
export function runInput(): BenchState {
  return initialState()
}

/**
 * Throws unless a completed run's state holds every field its graph adds.
 * @throws Error naming the run and the missing field
 */
export function assertCompleted(
  runId: string,
  state: Record<string, unknown>,
  fields: readonly string[],
): void {
  for (const key of ['document', ...fields]) {
    if (state[key] === undefined) throw new Error(`run ${runId}: final state lacks "${key}"`)
  }
}

/** The fields a completed linear run holds. */
export const LINEAR_FIELDS: readonly string[] = FIELD_NAMES

/** The fields a completed approval run holds. */
export const APPROVAL_FIELDS: readonly string[] = ['result1', APPROVAL_STEP, 'result4', 'result5']
