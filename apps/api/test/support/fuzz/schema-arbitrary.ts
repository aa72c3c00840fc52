import fc from 'fast-check'
import { dateTime } from './date-time.js'
import { hostileJsonValue, nastyString } from './hostile-values.js'
import { isRecord, type SchemaNode } from './openapi-operations.js'

/** What the converter needs besides the schema. */
export interface SchemaContext {
  /** `components.schemas`, for `$ref: '#/components/schemas/X'`. */
  components: Record<string, SchemaNode>
  /** Known-good values by property name (seeded ids, graph names), mixed into generated ones. */
  hints?: Record<string, readonly unknown[]>
  /** More generators by property name, for properties whose schema says little (a `spec`). */
  extras?: Record<string, fc.Arbitrary<unknown>>
}

// Beyond this depth a schema's open parts ({} / additionalProperties) generate flat JSON, and
// $ref cycles stop.
const MAX_DEPTH = 6
const MAX_STRING = 60
const MAX_ITEMS = 6

type TypeName = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null'
const TYPE_NAMES: readonly TypeName[] = [
  'object',
  'array',
  'string',
  'integer',
  'number',
  'boolean',
  'null',
]

/**
 * Values a JSON Schema (the OpenAPI 3.1 subset zod emits) accepts: object (properties, required,
 * additionalProperties), array, string (length, pattern, format, enum), number and integer
 * (bounds), boolean, null, anyOf/oneOf, allOf, `nullable`, `const` and `$ref`.
 */
export function validValue(schema: SchemaNode, context: SchemaContext): fc.Arbitrary<unknown> {
  return valid(schema, context, 0, undefined)
}

/**
 * Values that are wrong for a JSON Schema in one place: a required property missing, an unknown
 * property, a property of the wrong type or out of bounds, or the whole value of the wrong type.
 */
export function invalidValue(schema: SchemaNode, context: SchemaContext): fc.Arbitrary<unknown> {
  return invalid(schema, context, 0)
}

function valid(
  schema: SchemaNode,
  context: SchemaContext,
  depth: number,
  name: string | undefined,
): fc.Arbitrary<unknown> {
  const generated = validNode(resolve(schema, context), context, depth)
  if (name === undefined) return generated
  const hints = context.hints?.[name] ?? []
  const extra = context.extras?.[name]
  // Known values outweigh generated ones: they reach rows, generated ones mostly reach a 404.
  const options: fc.WeightedArbitrary<unknown>[] = [{ arbitrary: generated, weight: 1 }]
  if (hints.length > 0) options.push({ arbitrary: fc.constantFrom(...hints), weight: 2 })
  if (extra) options.push({ arbitrary: extra, weight: 2 })
  return fc.oneof(...options)
}

function validNode(node: SchemaNode, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  if ('const' in node) return fc.constant(node.const)
  if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...node.enum)
  const alternatives = alternativesOf(node)
  if (alternatives) return fc.oneof(...alternatives.map((s) => valid(s, context, depth, undefined)))
  if (Array.isArray(node.allOf)) return validNode(mergeAllOf(node, context), context, depth)
  if (node.nullable === true) {
    return fc.option(validNode({ ...node, nullable: false }, context, depth), { nil: null })
  }
  const types = typesOf(node)
  if (types.length !== 1) {
    if (types.length > 1)
      return fc.oneof(...types.map((t) => validNode({ ...node, type: t }, context, depth)))
    return anyJson(depth)
  }
  switch (types[0]) {
    case 'object':
      return validObject(node, context, depth)
    case 'array':
      return fc.array(
        isRecord(node.items)
          ? valid(node.items, context, depth + 1, undefined)
          : anyJson(depth + 1),
        {
          minLength: numberOr(node.minItems, 0),
          maxLength: Math.max(
            numberOr(node.minItems, 0),
            Math.min(numberOr(node.maxItems, MAX_ITEMS), MAX_ITEMS),
          ),
        },
      )
    case 'string':
      return validString(node)
    case 'integer':
      return validInteger(node)
    case 'number':
      return fc.double({
        min: numberOr(node.minimum, -1e9),
        max: numberOr(node.maximum, 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'boolean':
      return fc.boolean()
    default:
      return fc.constant(null)
  }
}

function validObject(
  node: SchemaNode,
  context: SchemaContext,
  depth: number,
): fc.Arbitrary<unknown> {
  const properties = isRecord(node.properties) ? node.properties : {}
  const keys = Object.keys(properties)
  const required = new Set(Array.isArray(node.required) ? node.required.map(String) : [])
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const key of keys) {
    const property = properties[key]
    model[key] = valid(isRecord(property) ? property : {}, context, depth + 1, key)
  }
  const declared = fc.record(model, { requiredKeys: keys.filter((key) => required.has(key)) })
  const extra = node.additionalProperties
  if (extra === false || (keys.length > 0 && extra === undefined)) return declared
  const extraValue =
    isRecord(extra) && Object.keys(extra).length > 0
      ? valid(extra, context, depth + 1, undefined)
      : anyJson(depth + 1)
  return fc
    .tuple(declared, fc.dictionary(fc.string({ maxLength: 12 }), extraValue, { maxKeys: 4 }))
    .map(([fields, extras]) => ({ ...extras, ...fields }))
}

function validString(node: SchemaNode): fc.Arbitrary<string> {
  const minLength = numberOr(node.minLength, 0)
  const maxLength = Math.max(minLength, Math.min(numberOr(node.maxLength, MAX_STRING), MAX_STRING))
  const fits = (value: string) =>
    value.length >= minLength && value.length <= numberOr(node.maxLength, Infinity)
  switch (node.format) {
    case 'date-time':
      return dateTime()
    case 'uuid':
      return fc.uuid()
    case 'uri':
    case 'url':
      return fc.webUrl()
    case 'email':
      return fc.emailAddress()
    default:
  }
  if (typeof node.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(node.pattern)).filter(fits)
    } catch {
      // A pattern fast-check cannot invert falls back to plain strings below.
    }
  }
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.string({ minLength, maxLength, unit: 'grapheme' }),
  )
}

function validInteger(node: SchemaNode): fc.Arbitrary<number> {
  const min = Math.max(numberOr(node.minimum, -(2 ** 31)), Number.MIN_SAFE_INTEGER)
  const max = Math.min(numberOr(node.maximum, 2 ** 31 - 1), Number.MAX_SAFE_INTEGER)
  return fc.oneof(
    { arbitrary: fc.constantFrom(min, max), weight: 1 },
    {
      arbitrary: fc.integer({
        min: Math.max(min, -1000),
        max: Math.max(Math.min(max, 1000), Math.max(min, -1000)),
      }),
      weight: 3,
    },
    { arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number), weight: 2 },
  )
}

function invalid(schema: SchemaNode, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const node = resolve(schema, context)
  const alternatives = alternativesOf(node)
  if (alternatives) return fc.oneof(...alternatives.map((s) => invalid(s, context, depth)))
  if (Array.isArray(node.allOf)) return invalid(mergeAllOf(node, context), context, depth)
  const types = typesOf(node)
  const wrong = wrongType(types)
  if (Array.isArray(node.enum)) return fc.oneof(wrong, nastyString(), enumNeighbour(node.enum))
  if (types.length !== 1 || depth > MAX_DEPTH) return fc.oneof(wrong, hostileJsonValue())
  switch (types[0]) {
    case 'object':
      return fc.oneof(wrong, invalidObject(node, context, depth))
    case 'array':
      return fc.oneof(
        wrong,
        fc.array(
          isRecord(node.items) ? invalid(node.items, context, depth + 1) : hostileJsonValue(),
          { minLength: 1, maxLength: 3 },
        ),
        fc.constant(Array.from({ length: numberOr(node.maxItems, 1000) + 1 }, () => 1)),
      )
    case 'string':
      return fc.oneof(wrong, nastyString(), tooLong(node))
    case 'integer':
    case 'number':
      return fc.oneof(wrong, outOfBounds(node, types[0]))
    default:
      return fc.oneof(wrong, hostileJsonValue())
  }
}

function invalidObject(
  node: SchemaNode,
  context: SchemaContext,
  depth: number,
): fc.Arbitrary<unknown> {
  const properties = isRecord(node.properties) ? node.properties : {}
  const keys = Object.keys(properties)
  const required = Array.isArray(node.required) ? node.required.map(String) : []
  const base = validObject(node, context, depth).map((value) => (isRecord(value) ? value : {}))
  const mutations: fc.Arbitrary<unknown>[] = [
    fc
      .tuple(base, nastyString(), fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileJsonValue()))
      .map(([object, key, value]) => withKey(object, key, value)),
    fc
      .tuple(base, fc.constantFrom('__proto__', 'constructor'), fc.jsonValue({ maxDepth: 2 }))
      .map(([object, key, value]) => withKey(object, key, value)),
  ]
  if (required.length > 0) {
    mutations.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([object, key]) => without(object, key)),
    )
  }
  if (keys.length > 0) {
    mutations.push(
      fc.tuple(base, fc.constantFrom(...keys)).chain(([object, key]) => {
        const property = properties[key]
        return invalid(isRecord(property) ? property : {}, context, depth + 1).map((value) =>
          withKey(object, key, value),
        )
      }),
    )
  }
  return fc.oneof(...mutations)
}

function wrongType(types: readonly TypeName[]): fc.Arbitrary<unknown> {
  const accepted = new Set<TypeName>(types)
  if (accepted.has('number')) accepted.add('integer')
  const all: [TypeName, fc.Arbitrary<unknown>][] = [
    [
      'object',
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    ],
    ['array', fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })],
    ['string', fc.string({ maxLength: 10 })],
    ['integer', fc.integer()],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true })],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
  ]
  const others = all.filter(([type]) => !accepted.has(type)).map(([, arbitrary]) => arbitrary)
  return others.length > 0 ? fc.oneof(...others) : fc.jsonValue({ maxDepth: 1 })
}

function enumNeighbour(values: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc
    .constantFrom(...values)
    .map((value) => (typeof value === 'string' ? `${value.toUpperCase()} ` : [value]))
}

function tooLong(node: SchemaNode): fc.Arbitrary<string> {
  const limit = numberOr(node.maxLength, 2_000)
  return fc.constantFrom('a', 'é', '😀').map((char) => char.repeat(limit + 1))
}

function outOfBounds(node: SchemaNode, type: 'integer' | 'number'): fc.Arbitrary<unknown> {
  const values: unknown[] = [
    1e308,
    -1e308,
    2 ** 53,
    2 ** 63,
    -(2 ** 31) - 1,
    2 ** 31,
    5e-324,
    '1',
    '',
  ]
  if (typeof node.minimum === 'number') values.push(node.minimum - 1, node.minimum - 0.5)
  if (typeof node.maximum === 'number') values.push(node.maximum + 1, node.maximum + 0.5)
  if (type === 'integer') values.push(0.5, 1.000001)
  return fc.constantFrom(...values)
}

function resolve(schema: SchemaNode, context: SchemaContext, seen = 0): SchemaNode {
  const ref = schema.$ref
  if (typeof ref !== 'string' || seen > 20) return schema
  const name = ref.replace(/^#\/components\/schemas\//, '')
  const target = context.components[name]
  return target ? resolve(target, context, seen + 1) : {}
}

function alternativesOf(node: SchemaNode): SchemaNode[] | undefined {
  const list = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined
  return list?.filter(isRecord)
}

function mergeAllOf(node: SchemaNode, context: SchemaContext): SchemaNode {
  const parts = (node.allOf as unknown[]).filter(isRecord).map((part) => resolve(part, context))
  const { allOf: _allOf, ...rest } = node
  const merged: SchemaNode = { ...rest }
  for (const part of parts) {
    Object.assign(merged, part, {
      properties: {
        ...(isRecord(merged.properties) ? merged.properties : {}),
        ...(isRecord(part.properties) ? part.properties : {}),
      },
      required: [
        ...(Array.isArray(merged.required) ? merged.required : []),
        ...(Array.isArray(part.required) ? part.required : []),
      ],
    })
  }
  return merged
}

function typesOf(node: SchemaNode): TypeName[] {
  const declared = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]
  const types = declared.filter((t): t is TypeName => TYPE_NAMES.includes(t as TypeName))
  if (types.length > 0) return types
  if (isRecord(node.properties) || node.additionalProperties !== undefined) return ['object']
  if (node.items !== undefined) return ['array']
  return []
}

function anyJson(depth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: Math.max(0, Math.min(3, MAX_DEPTH - depth)) })
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback
}

/** A copy of `object` with an own enumerable `key` (also `__proto__`, which `{ [k]: v }` is not). */
export function withKey(
  object: Record<string, unknown>,
  key: string,
  value: unknown,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(object))
    Object.defineProperty(copy, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
  return copy
}

function without(object: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key))
}
