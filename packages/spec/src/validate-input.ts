import type { GraphSpec } from './graph-spec.js'
import { validateAgainstSchema } from './json-schema.js'
import type { SpecProblem } from './problem.js'

/**
 * Checks a run's input against the spec's `input` schema (none: any object). Problem paths
 * are JSON Pointers into the input.
 */
export function validateRunInput(spec: GraphSpec, input: unknown): SpecProblem[] {
  if (spec.input === undefined) return []
  return validateAgainstSchema(spec.input, input)
}

/**
 * Checks a thread run's input against the spec's `input` schema. The input is merged into the
 * state the thread's earlier runs left, so a top-level key the schema requires may come from
 * that state: its absence is a problem only on the thread's first run, whose input is its whole
 * starting state, as a plain run's is. Every key given is held to the schema either way
 * (validate-input.test.ts).
 */
export function validateThreadRunInput(
  spec: GraphSpec,
  input: unknown,
  options: { isFirstRun: boolean },
): SpecProblem[] {
  const problems = validateRunInput(spec, input)
  if (options.isFirstRun) return problems
  return problems.filter((p) => !isMissingTopLevelKey(p, input))
}

function isMissingTopLevelKey(problem: SpecProblem, input: unknown): boolean {
  if (problem.message !== 'required' || !/^\/[^/]*$/.test(problem.path)) return false
  const key = problem.path.slice(1).replaceAll('~1', '/').replaceAll('~0', '~')
  return typeof input !== 'object' || input === null || !Object.hasOwn(input, key)
}

/**
 * Checks resume input for an input step against its `schema` before the run is resumed.
 * Problem paths are JSON Pointers into the input; a step that is missing or is not an input
 * step is one problem at the root.
 */
export function validateStepInput(
  spec: GraphSpec,
  stepName: string,
  input: unknown,
): SpecProblem[] {
  const step = Object.hasOwn(spec.steps, stepName) ? spec.steps[stepName] : undefined
  if (step?.kind !== 'input') {
    return [{ path: '', message: `step "${stepName}" is not an input step` }]
  }
  if (step.schema === undefined) return []
  return validateAgainstSchema(step.schema, input)
}
