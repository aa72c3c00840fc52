import { linearRegExpError } from './linear-regexp.js'
import { toPointer, type SpecProblem } from './problem.js'

// Keywords whose value is a subschema, a map of subschemas, or a list of them (draft 2020-12,
// plus the draft-07 spellings Ajv still compiles). Only these are walked, so a `pattern` inside
// `const`, `enum`, `default` or `examples` is data, not a pattern.
const SCHEMA_KEYWORDS = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
])
const SCHEMA_MAP_KEYWORDS = new Set([
  '$defs',
  'definitions',
  'dependencies',
  'dependentSchemas',
  'patternProperties',
  'properties',
])
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'])

type Path = Array<string | number>

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function checkPattern(source: string, path: Path, problems: SpecProblem[]): void {
  const error = linearRegExpError(source, 'u')
  if (error !== undefined) {
    problems.push({
      path: toPointer(path),
      message: `pattern "${source}" is not supported: ${error}`,
    })
  }
}

function visit(schema: unknown, path: Path, problems: SpecProblem[]): void {
  if (!isRecord(schema)) return
  if (typeof schema.pattern === 'string')
    checkPattern(schema.pattern, [...path, 'pattern'], problems)
  for (const [keyword, value] of Object.entries(schema)) {
    const at = [...path, keyword]
    if (keyword === 'patternProperties' && isRecord(value)) {
      for (const source of Object.keys(value)) checkPattern(source, [...at, source], problems)
    }
    if (SCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...at, i], problems))
    } else if (SCHEMA_MAP_KEYWORDS.has(keyword) && isRecord(value)) {
      for (const [name, item] of Object.entries(value)) visit(item, [...at, name], problems)
    } else if (SCHEMA_KEYWORDS.has(keyword)) {
      visit(value, at, problems)
    }
  }
}

/**
 * Every `pattern` and `patternProperties` key of a JSON Schema that the linear-time engine
 * cannot run (backreferences, lookaround), each at its JSON Pointer inside the schema.
 */
export function unsupportedPatternProblems(schema: unknown): SpecProblem[] {
  const problems: SpecProblem[] = []
  visit(schema, [], problems)
  return problems
}
