import { isDeepStrictEqual } from 'node:util'
import { GraphSpec } from '@weave/spec'
import { z } from 'zod'
import { RegisterGraphBody } from './schemas/graphs.js'

/** Where the API serves the graph spec's JSON Schema; also the schema's `$id`. */
export const GRAPH_SPEC_SCHEMA_PATH = '/schemas/graph-spec.json'
/** Where the API serves the JSON Schema of a `POST /v1/graphs` body; also its `$id`. */
export const GRAPH_REGISTRATION_SCHEMA_PATH = '/schemas/graph-registration.json'

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>

const DIALECT = 'https://json-schema.org/draft/2020-12/schema'

// What zod writes for z.json(): any JSON value, defined recursively.
const JSON_VALUE_DEF = (self: string): JsonSchema => ({
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array', items: { $ref: self } },
    { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { $ref: self } },
  ],
})

/**
 * The graph spec (docs/graph-spec.md) as a JSON Schema (draft 2020-12), generated from the zod
 * schema the registry validates with, as written (before defaults). Each step kind is its own
 * `$defs` entry (`SetStep`, `ApprovalStep`, …) and `Step` their union, so editors and generated
 * clients name them. A top-level `$schema` is allowed: registration ignores it. What the schema
 * cannot say (expressions parse, routes name steps, subgraphs exist) is checked at registration
 * (422 `invalid-graph-spec`).
 */
export function graphSpecJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(GraphSpec, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as JsonSchema
  const { $schema: _dialect, $defs: rawDefs = {}, ...root } = generated
  let body: JsonSchema = root
  const defs: Record<string, JsonSchema> = {}

  // z.json() is written once per use (`__schema0`, `__schema1`, …): one `JsonValue` for all.
  for (const [name, def] of Object.entries(rawDefs as Record<string, JsonSchema>)) {
    const ref = `#/$defs/${name}`
    if (!isDeepStrictEqual(def, JSON_VALUE_DEF(ref))) {
      throw new Error(`graph spec schema: unexpected shared definition ${name}`)
    }
    body = replaceRefs(body, ref, '#/$defs/JsonValue')
    defs.JsonValue = JSON_VALUE_DEF('#/$defs/JsonValue')
  }

  const properties = body.properties as Record<string, JsonSchema>
  const steps = properties.steps as JsonSchema & { additionalProperties: JsonSchema }
  const union = steps.additionalProperties as { oneOf: JsonSchema[] }
  defs.Step = {
    description: 'A step of the graph; `kind` says which',
    oneOf: union.oneOf.map((step) => {
      const name = `${pascalCase(kindOf(step))}Step`
      defs[name] = step
      return { $ref: `#/$defs/${name}` }
    }),
  }
  steps.additionalProperties = { $ref: '#/$defs/Step' }

  return {
    $schema: DIALECT,
    $id: GRAPH_SPEC_SCHEMA_PATH,
    title: 'Weave graph spec',
    description:
      'A graph as a JSON document: its entry step, its steps, the schema of its input, merge ' +
      'policies and limits (docs/graph-spec.md).',
    ...body,
    properties: {
      $schema: {
        type: 'string',
        description: 'The JSON Schema this document follows, for editors; Weave ignores it',
      },
      ...properties,
    },
    $defs: sortKeys(defs),
  }
}

/**
 * The JSON Schema of a `POST /v1/graphs` body ({ name, description, spec }), as the files in
 * examples/ are written. The graph spec schema is embedded (`$defs.GraphSpec`) rather than
 * referred to, so the schema also works read from a file, whatever its `$id` resolves to there.
 */
export function graphRegistrationJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(RegisterGraphBody, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as JsonSchema
  // The body's zod schema has an id, so zod writes it as a definition the root refers to.
  const defs = generated.$defs as Record<string, JsonSchema>
  const { examples: _examples, ...body } = defs.RegisterGraphBody ?? {}
  const properties = body.properties as Record<string, JsonSchema>
  const { spec: _spec, ...others } = properties
  const {
    $schema: _dialect,
    $id: _id,
    $defs: specDefs,
    ...spec
  } = graphSpecJsonSchema() as JsonSchema & { $defs: Record<string, JsonSchema> }
  return {
    $schema: DIALECT,
    $id: GRAPH_REGISTRATION_SCHEMA_PATH,
    title: 'Weave graph registration',
    description: 'The body of POST /v1/graphs: a graph name, a description and its spec.',
    ...body,
    properties: { ...others, spec: { $ref: '#/$defs/GraphSpec' } },
    $defs: sortKeys({ ...specDefs, GraphSpec: spec }),
  }
}

/**
 * Any JSON value, as an OpenAPI component. Not the recursive definition the JSON Schema files
 * carry: a type generated from a component that refers to itself does not compile
 * (openapi-typescript), and a JSON value is no more than `unknown` to a client anyway.
 */
export const JSON_VALUE: JsonSchema = { description: 'Any JSON value' }

/**
 * The graph spec schema as OpenAPI components: `GraphSpec` and each of its definitions, their
 * references rewritten to `#/components/schemas/…`.
 */
export function graphSpecComponents(): Record<string, JsonSchema> {
  const {
    $schema: _dialect,
    $id: _id,
    $defs,
    ...root
  } = graphSpecJsonSchema() as JsonSchema & {
    $defs: Record<string, JsonSchema>
  }
  const components: Record<string, JsonSchema> = {
    GraphSpec: root,
    ...$defs,
    JsonValue: JSON_VALUE,
  }
  return rewriteRefs(mapValues(components), (ref) =>
    ref.startsWith('#/$defs/') ? `#/components/schemas/${ref.slice('#/$defs/'.length)}` : ref,
  ) as Record<string, JsonSchema>
}

/**
 * The schema with each `default` said in its description instead. Generators take a default as
 * a promise that the member is present (openapi-typescript makes it required), which is true of
 * a stored spec but not of one a client writes.
 */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults)
  if (typeof value !== 'object' || value === null) return value
  const record = value as JsonSchema
  const entries = Object.entries(record)
    .filter(([key]) => key !== 'default')
    .map(([key, child]) => [
      key,
      key === 'properties' || isSchemaMap(key) ? mapValues(child) : withoutDefaults(child),
    ])
  const result = Object.fromEntries(entries) as JsonSchema
  if ('default' in record && (typeof record.type === 'string' || Array.isArray(record.type))) {
    const said = `Default: ${JSON.stringify(record.default)}.`
    result.description =
      typeof record.description === 'string' ? `${record.description}. ${said}` : said
  }
  return result
}

function isSchemaMap(key: string): boolean {
  return key === '$defs' || key === 'patternProperties'
}

function mapValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, withoutDefaults(child)]),
  )
}

function kindOf(step: JsonSchema): string {
  const kind = (step.properties as Record<string, JsonSchema> | undefined)?.kind?.const
  if (typeof kind !== 'string') throw new Error('graph spec schema: a step without a kind')
  return kind
}

function pascalCase(text: string): string {
  return text.replace(/(^|[-_])([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase())
}

function replaceRefs(value: JsonSchema, from: string, to: string): JsonSchema {
  return rewriteRefs(value, (ref) => (ref === from ? to : ref)) as JsonSchema
}

/** A copy of a JSON value with every `$ref` string mapped. */
export function rewriteRefs(value: unknown, map: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, map))
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' ? map(child) : rewriteRefs(child, map),
    ]),
  )
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))
}
