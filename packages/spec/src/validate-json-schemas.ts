import { jsonSchemaErrors } from './json-schema.js'
import { toPointer, type SpecProblem } from './problem.js'
import { stepEntries } from './spec-walk.js'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function check(schema: unknown, path: ReadonlyArray<string>): SpecProblem[] {
  // Wrong types are the schema's to report; only objects and booleans are compiled.
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null)) return []
  if (Array.isArray(schema)) return []
  return jsonSchemaErrors(schema).map((e) => ({
    path: `${toPointer(path)}${e.path}`,
    message: `not a valid JSON Schema: ${e.message}`,
  }))
}

/**
 * The top-level `input` schema, every input and approval step's `schema` and every agent
 * tool's `parameters` must compile (draft 2020-12).
 */
export function jsonSchemaProblems(doc: unknown): SpecProblem[] {
  const problems: SpecProblem[] = []
  if (typeof doc === 'object' && doc !== null && 'input' in doc) {
    problems.push(...check(doc.input, ['input']))
  }
  for (const [name, step] of stepEntries(doc)) {
    if ((step.kind === 'input' || step.kind === 'approval') && 'schema' in step) {
      problems.push(...check(step.schema, ['steps', name, 'schema']))
    }
    if (step.kind === 'agent' && isRecord(step.tools)) {
      for (const [tool, spec] of Object.entries(step.tools)) {
        if (isRecord(spec) && 'parameters' in spec) {
          problems.push(...check(spec.parameters, ['steps', name, 'tools', tool, 'parameters']))
        }
      }
    }
  }
  return problems
}
