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
