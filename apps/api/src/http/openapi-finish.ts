import { isDeepStrictEqual } from 'node:util'
import {
  JSON_VALUE,
  graphSpecComponents,
  rewriteRefs,
  type JsonSchema,
} from '../graph-spec-schema.js'
import { WEBHOOK_EVENT_TYPES, WEBHOOK_PAYLOADS } from '../schemas/webhooks.js'

type Json = Record<string, unknown>

const SCHEMAS = '#/components/schemas/'
const HEADERS = '#/components/headers/'
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

// Example values of the path parameters, so each problem example's `instance` is a real path.
const PATH_EXAMPLES: Record<string, string> = {
  id: '0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11',
  name: 'refunds',
  version: '2',
  seq: '1',
  token: 'wat_3kQ9pX2vN7rT5yL8mB4cD6fH1jK0sW',
}

/** Response headers shared by every operation, as `components.headers`. */
const SHARED_HEADERS: Record<string, Json> = {
  XRequestId: {
    description:
      "The request's id: the caller's `X-Request-Id` when it is a safe token (1–128 of " +
      '`A-Za-z0-9._:-`), otherwise a new UUID. Logs and audit events carry it.',
    schema: { type: 'string', examples: ['7f3c9a1e-2b4d-4e6f-8a0b-1c2d3e4f5a6b'] },
  },
}

const WEBHOOK_HEADERS: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The delivery id, the same on every attempt: a receiver that saw it already drops the ' +
      'duplicate',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed, in Unix seconds; refuse one too far from now',
    schema: { type: 'string', pattern: '^[0-9]+$', examples: ['1738315800'] },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>' +
      '.<body>">`, one per live secret, space-separated (two during a rotation grace): accept ' +
      'the delivery when any one verifies with a secret you hold',
    schema: { type: 'string', examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='] },
  },
  {
    name: 'user-agent',
    in: 'header',
    required: true,
    description: "Weave's webhook sender",
    schema: { type: 'string', const: 'Weave-Webhooks/1' },
  },
]

/**
 * Finishes the document @fastify/swagger built from the route schemas: zod's shared definitions
 * as named components, the graph spec's schema, webhooks, `X-Request-Id` on every response, each
 * problem example's `instance`, and no component twice (an input variant equal to its output) or
 * unused.
 */
export function finishOpenApiDocument(document: Json): Json {
  const components = (document.components ?? {}) as Json
  const schemas = hoistSharedDefinitions({ ...(components.schemas as Record<string, JsonSchema>) })
  for (const [name, schema] of Object.entries(graphSpecComponents())) {
    if (schemas[name] !== undefined && !isDeepStrictEqual(schemas[name], schema)) {
      throw new Error(`OpenAPI: component ${name} is defined twice`)
    }
    schemas[name] = schema
  }
  const finished: Json = {
    ...document,
    paths: finishPaths(document.paths as Record<string, Json>),
    webhooks: webhooks(),
    components: { ...components, schemas, headers: SHARED_HEADERS },
  }
  return pruneUnusedComponents(mergeInputVariants(finished))
}

/**
 * zod writes definitions several schemas share (z.json()'s recursive JSON value) under a
 * `__shared` component, referred to as `…/__shared#/$defs/schemaN`, which no tool resolves. Each
 * becomes a component of its own; equal ones become one.
 */
function hoistSharedDefinitions(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const shared = schemas.__shared as { $defs?: Record<string, JsonSchema> } | undefined
  if (!shared?.$defs) return schemas
  const { __shared: _shared, ...rest } = schemas
  const names = new Map<string, string>()
  const hoisted: Record<string, JsonSchema> = {}
  for (const [def, schema] of Object.entries(shared.$defs)) {
    const own = `${SCHEMAS}__shared#/$defs/${def}`
    const normalized = rewriteRefs(schema, (ref) => (ref === own ? '#self' : ref)) as JsonSchema
    const name = isJsonValue(normalized) ? 'JsonValue' : `Shared_${def}`
    names.set(own, name)
    hoisted[name] = name === 'JsonValue' ? JSON_VALUE : schema
  }
  const rewritten = rewriteRefs({ ...rest, ...hoisted }, (ref) => {
    const name = names.get(ref)
    return name ? `${SCHEMAS}${name}` : ref
  })
  return collapseJsonValueUnions(rewritten) as Record<string, JsonSchema>
}

/** `anyOf: [JsonValue, …]` matches anything, as JsonValue alone does: it becomes JsonValue. */
function collapseJsonValueUnions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(collapseJsonValueUnions)
  if (typeof value !== 'object' || value === null) return value
  const { anyOf, ...rest } = value as Json
  const members = Array.isArray(anyOf) ? (anyOf as Json[]) : undefined
  if (members?.some((member) => member.$ref === `${SCHEMAS}JsonValue`)) {
    return { ...(collapseJsonValueUnions(rest) as Json), $ref: `${SCHEMAS}JsonValue` }
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, collapseJsonValueUnions(child)]),
  )
}

function isJsonValue(schema: JsonSchema): boolean {
  return isDeepStrictEqual(schema, {
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: { $ref: '#self' } },
      {
        type: 'object',
        propertyNames: { type: 'string' },
        additionalProperties: { $ref: '#self' },
      },
    ],
  })
}

function finishPaths(paths: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) =>
          METHODS.includes(method)
            ? [method, finishOperation(path, operation as Json)]
            : [method, operation],
        ),
      ),
    ]),
  )
}

function finishOperation(path: string, operation: Json): Json {
  const parameters = (operation.parameters ?? []) as Json[]
  const instance = path.replace(/\{(\w+)\}/g, (template, name: string) => {
    const parameter = parameters.find((p) => p.in === 'path' && p.name === name)
    const declared = parameter?.example ?? (parameter?.schema as Json | undefined)?.examples
    const value = Array.isArray(declared) ? declared[0] : declared
    return typeof value === 'string' ? value : (PATH_EXAMPLES[name] ?? template)
  })
  const responses = operation.responses as Record<string, Json>
  return {
    ...operation,
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, response]) => {
        const content = response.content as Record<string, Json> | undefined
        const problem = content?.['application/problem+json']
        const examples = problem?.examples as Record<string, { value: Json }> | undefined
        const withInstances = examples
          ? {
              ...content,
              'application/problem+json': {
                ...problem,
                examples: Object.fromEntries(
                  Object.entries(examples).map(([name, example]) => [
                    name,
                    { ...example, value: withInstance(example.value, instance) },
                  ]),
                ),
              },
            }
          : content
        return [
          status,
          {
            ...response,
            headers: {
              ...(response.headers as Json | undefined),
              'X-Request-Id': { $ref: `${HEADERS}XRequestId` },
            },
            ...(withInstances ? { content: withInstances } : {}),
          },
        ]
      }),
    ),
  }
}

// Members in the order the API writes them: extensions, type, title, status, detail, instance, errors.
function withInstance(body: Json, instance: string): Json {
  const { errors, ...rest } = body
  return { ...rest, instance, ...(errors === undefined ? {} : { errors }) }
}

/** Whose event a type is: a thread's, a schedule's, or (steps and approvals too) a run's. */
function ownerOf(type: string): string {
  const first = type.split('.')[0]
  return first === 'thread' || first === 'schedule' ? first : 'run'
}

/** One OpenAPI 3.1 webhook per event type: what Weave POSTs to a subscribed URL. */
function webhooks(): Json {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const id = (WEBHOOK_PAYLOADS[type].meta() as { id: string }).id
      return [
        type,
        {
          post: {
            operationId: `deliver_${type.replaceAll('.', '_')}`,
            summary: `Delivers a ${ownerOf(type)}'s \`${type}\` event to each webhook subscribed to it`,
            description:
              'Sent when the event is recorded, to every webhook of the tenant whose `events` ' +
              'include it. Verify `webhook-signature` (Standard Webhooks) before trusting the ' +
              'body. A 2xx answer within the timeout ends the delivery; anything else is retried ' +
              'with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` ' +
              'and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists ' +
              'every attempt.',
            tags: ['webhooks'],
            security: [],
            parameters: WEBHOOK_HEADERS,
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `${SCHEMAS}${id}` } } },
            },
            responses: {
              '2XX': { description: 'Received: the delivery succeeded' },
              default: {
                description: 'Any other answer, or none in time: the attempt failed and is retried',
              },
            },
          },
        },
      ]
    }),
  )
}

/**
 * zod writes each schema with an id twice, as read (`FooInput`) and as written (`Foo`). An input
 * variant equal to its output is replaced by it; one whose output is unused takes its name.
 */
function mergeInputVariants(document: Json): Json {
  let current = document
  for (;;) {
    const schemas = (current.components as Json).schemas as Record<string, JsonSchema>
    const used = referencedSchemas(current)
    const renames = new Map<string, string>()
    for (const name of Object.keys(schemas)) {
      if (!name.endsWith('Input')) continue
      const output = name.slice(0, -'Input'.length)
      if (schemas[output] === undefined) continue
      if (isDeepStrictEqual(schemas[name], schemas[output]) || !used.has(output)) {
        renames.set(`${SCHEMAS}${name}`, `${SCHEMAS}${output}`)
      }
    }
    if (renames.size === 0) return current
    const next = rewriteRefs(current, (ref) => renames.get(ref) ?? ref) as Json
    const nextSchemas = { ...((next.components as Json).schemas as Record<string, JsonSchema>) }
    for (const [from, to] of renames) {
      const fromName = from.slice(SCHEMAS.length)
      const toName = to.slice(SCHEMAS.length)
      if (!used.has(toName)) nextSchemas[toName] = nextSchemas[fromName] as JsonSchema
      delete nextSchemas[fromName]
    }
    current = { ...next, components: { ...(next.components as Json), schemas: nextSchemas } }
  }
}

/** The document without the components nothing outside `components` reaches. */
function pruneUnusedComponents(document: Json): Json {
  const components = document.components as Record<string, Record<string, unknown>>
  const reached = new Set<string>()
  const queue: unknown[] = [document.paths, document.webhooks]
  for (let item = queue.pop(); item !== undefined || queue.length > 0; item = queue.pop()) {
    for (const ref of refsIn(item)) {
      if (reached.has(ref)) continue
      reached.add(ref)
      const [, group, name] = ref.split('/').slice(1)
      const target = group && name ? components[group]?.[name] : undefined
      if (target !== undefined) queue.push(target)
    }
  }
  const pruned = Object.fromEntries(
    Object.entries(components).map(([group, entries]) => [
      group,
      group === 'securitySchemes'
        ? entries
        : Object.fromEntries(
            Object.entries(entries).filter(([name]) =>
              reached.has(`#/components/${group}/${name}`),
            ),
          ),
    ]),
  )
  return { ...document, components: pruned }
}

function referencedSchemas(document: Json): Set<string> {
  const { components, ...outside } = document
  const schemas = (components as Json).schemas as Record<string, JsonSchema>
  const used = new Set<string>()
  const queue: unknown[] = [outside]
  for (let item = queue.pop(); item !== undefined || queue.length > 0; item = queue.pop()) {
    for (const ref of refsIn(item)) {
      if (!ref.startsWith(SCHEMAS)) continue
      const name = ref.slice(SCHEMAS.length)
      if (used.has(name)) continue
      used.add(name)
      if (schemas[name] !== undefined) queue.push(schemas[name])
    }
  }
  return used
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child)
      else refsIn(child, found)
    }
  }
  return found
}
