import { createRequire } from 'node:module'
import type { Json } from '@weave/kernel'
import { compileLinearRegExp } from './linear-regexp.js'
import type { SpecProblem } from './problem.js'
import { unsupportedPatternProblems } from './schema-patterns.js'
import { isStackOverflow } from './stack-overflow.js'

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}
interface AjvValidate {
  (data: unknown): boolean
  errors?: AjvError[] | null
}
interface Ajv {
  compile(schema: unknown): AjvValidate
  validateSchema(schema: unknown): boolean
  removeSchema(schema: unknown): Ajv
  errors?: AjvError[] | null
}
type AjvConstructor = new (options: Record<string, unknown>) => Ajv
type AddFormats = (ajv: Ajv) => Ajv

// ajv-formats is built against ajv 8 and calls into its own copy of ajv's code generator, so the
// Ajv class is loaded from where ajv-formats resolves it: the pair always matches.
const requireHere = createRequire(import.meta.url)
const requireBesideFormats = createRequire(requireHere.resolve('ajv-formats'))
const { Ajv2020 } = requireBesideFormats('ajv/dist/2020') as { Ajv2020: AjvConstructor }
const addFormats = (requireHere('ajv-formats') as { default: AddFormats }).default

// Tenant `pattern`s and `patternProperties` run on RE2 (linear time), never on a backtracking
// RegExp: schemas are checked on every run start. Ajv caches compiled patterns by their
// toString(), so each must print as itself.
function linearRegExp(source: string, flags: string) {
  const re = compileLinearRegExp(source, flags)
  return { test: (text: string) => re.test(text), toString: () => `/${source}/${flags}` }
}
// Ajv writes `code` into standalone validators only, which are never generated here.
linearRegExp.code = 'linearRegExp'

function createAjv(): Ajv {
  // strict: false because unknown keywords ("example", vendor extensions) are valid JSON Schema.
  const options = { allErrors: true, strict: false, logger: false, code: { regExp: linearRegExp } }
  return addFormats(new Ajv2020(options))
}

let shared: Ajv | undefined
function ajv(): Ajv {
  shared ??= createAjv()
  return shared
}

// Compiling registers the schema (and its $id) in the instance; removing it right after keeps
// one tenant's $id from colliding with another's and the instance from growing forever.
function compileDetached(schema: unknown): AjvValidate {
  const instance = ajv()
  try {
    return instance.compile(schema)
  } finally {
    if (typeof schema === 'object' && schema !== null) instance.removeSchema(schema)
  }
}

const DRAFT_2020_12 = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
])

/**
 * Every reason `schema` is not a usable JSON Schema (draft 2020-12), as problems whose paths
 * point into the schema (one per location); empty when it compiles. A pattern RE2 cannot run
 * (backreferences, lookaround) is one such reason.
 */
export function jsonSchemaErrors(schema: unknown): SpecProblem[] {
  try {
    return schemaProblems(schema)
  } catch (err) {
    // Every step here walks the schema recursively: one nested past the stack's depth is refused.
    if (isStackOverflow(err)) return [{ path: '', message: compileFailure(err) }]
    throw err
  }
}

function schemaProblems(schema: unknown): SpecProblem[] {
  if (typeof schema === 'boolean') return []
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return [{ path: '', message: 'a JSON Schema is an object or a boolean' }]
  }
  const dialect = (schema as { $schema?: unknown }).$schema
  if (dialect !== undefined && !DRAFT_2020_12.has(String(dialect))) {
    return [{ path: '/$schema', message: 'only JSON Schema draft 2020-12 is supported' }]
  }
  const asyncAt = findAsyncKeyword(schema, '')
  if (asyncAt !== undefined) {
    // An $async schema validates through a Promise: every check would pass synchronously.
    return [{ path: asyncAt, message: '$async schemas are not supported' }]
  }
  const instance = ajv()
  let valid: boolean
  try {
    valid = instance.validateSchema(schema)
  } catch (err) {
    return [{ path: '', message: compileFailure(err) }]
  }
  if (!valid) {
    // The meta-schema reports one failure several ways (enum, type, anyOf); the first is enough.
    const byPath = new Map<string, string>()
    for (const e of instance.errors ?? []) {
      if (!byPath.has(e.instancePath)) byPath.set(e.instancePath, e.message ?? e.keyword)
    }
    return [...byPath].map(([path, message]) => ({ path, message }))
  }
  const unsupported = unsupportedPatternProblems(schema)
  if (unsupported.length > 0) return unsupported
  let validate: AjvValidate
  try {
    validate = compileDetached(schema)
  } catch (err) {
    return [{ path: '', message: compileFailure(err) }]
  }
  // A $ref or $dynamicRef that checks the same value again ({"$ref": "#"}) compiles, then
  // recurses without end on every value: refused here rather than failing every later check.
  for (const sample of SAMPLE_VALUES) {
    if (checkSafely(validate, sample) === ENDLESS) return [{ path: '', message: ENDLESS_MESSAGE }]
  }
  return []
}

const SAMPLE_VALUES: readonly unknown[] = [null, true, 0, '', [], {}]
const ENDLESS = Symbol('endless')
const ENDLESS_MESSAGE =
  'the schema refers to itself without end (a $ref or $dynamicRef that checks the same value again)'

/** Runs a validator, answering ENDLESS when it recursed until the stack ran out. */
function checkSafely(validate: AjvValidate, value: unknown): unknown {
  try {
    return validate(value)
  } catch (err) {
    if (isStackOverflow(err)) return ENDLESS
    throw err
  }
}

// A schema nested past the stack's depth fails to compile with the engine's own words.
function compileFailure(err: unknown): string {
  return isStackOverflow(err)
    ? 'the schema nests or refers to itself too deeply to compile'
    : (err as Error).message
}

const validators = new WeakMap<object, AjvValidate>()

function validatorFor(schema: object): AjvValidate {
  let validate = validators.get(schema)
  if (!validate) {
    validate = compileDetached(schema)
    validators.set(schema, validate)
  }
  return validate
}

function problemOf(e: AjvError): SpecProblem {
  const child = e.params.missingProperty ?? e.params.additionalProperty
  if (typeof child === 'string') {
    const escaped = child.replaceAll('~', '~0').replaceAll('/', '~1')
    const message = e.keyword === 'required' ? 'required' : 'unknown field'
    return { path: `${e.instancePath}/${escaped}`, message }
  }
  return { path: e.instancePath, message: e.message ?? e.keyword }
}

/**
 * Validates `value` against a JSON Schema; problem paths are JSON Pointers into `value`.
 * The compiled validator is cached per schema object.
 * @throws Error when the schema itself does not compile (check it with jsonSchemaErrors first).
 */
export function validateAgainstSchema(schema: Json, value: unknown): SpecProblem[] {
  if (schema === true) return []
  if (schema === false) return [{ path: '', message: 'no value is allowed here' }]
  if (typeof schema !== 'object' || schema === null) {
    throw new TypeError('a JSON Schema is an object or a boolean')
  }
  const validate = validatorFor(schema)
  const result = checkSafely(validate, value)
  if (result === true) return []
  // Registration refuses such a schema; one stored before that rule still refuses every value.
  if (result === ENDLESS) return [{ path: '', message: ENDLESS_MESSAGE }]
  if (result !== false) {
    // Only an $async schema answers with a Promise; never count that as valid.
    if (result instanceof Promise) result.catch(() => undefined)
    return [{ path: '', message: 'the schema cannot be checked synchronously' }]
  }
  return (validate.errors ?? []).map(problemOf)
}

/** The JSON Pointer of the first `$async: true` inside a schema, if any. */
function findAsyncKeyword(node: unknown, path: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = findAsyncKeyword(node[i], `${path}/${i}`)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$async' && value === true) return `${path}/$async`
    const escaped = key.replaceAll('~', '~0').replaceAll('/', '~1')
    const found = findAsyncKeyword(value, `${path}/${escaped}`)
    if (found !== undefined) return found
  }
  return undefined
}
