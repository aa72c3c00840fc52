import { jsonSchemaErrors } from './json-schema.js'
import { toPointer, type SpecProblem } from './problem.js'
import { stepEntries } from './spec-walk.js'

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
 * The top-level `input` schema and every input and approval step's `schema` must compile
 * (draft 2020-12).
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
  }
  return problems
}
