import swagger, { type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { finishOpenApiDocument } from './openapi-finish.js'
import { DOCS_CSP } from './security-headers.js'

/** Where Swagger UI is served. */
export const DOCS_PREFIX = '/docs'

const TAGS = [
  { name: 'graphs', description: 'Register and read graph specs' },
  { name: 'runs', description: 'Start, inspect, fork, cancel and resume runs' },
  {
    name: 'threads',
    description: 'Agents addressed by a key: state kept across runs, one active run at a time',
  },
  {
    name: 'schedules',
    description: 'Runs of a graph or a thread on a cron or an interval, each firing recorded',
  },
  { name: 'approvals', description: 'Read and decide approvals' },
  { name: 'webhooks', description: 'Outbound webhook subscriptions and deliveries' },
  { name: 'audit', description: 'The tamper-evident audit log' },
  { name: 'retention', description: 'How long finished runs and their history are kept' },
  { name: 'operations', description: 'Health, readiness, metrics and this document' },
]

/** Options of {@link openApiPlugin}. */
export interface OpenApiPluginOptions {
  /** Whether Swagger UI is served at `/docs` (WEAVE_DOCS); the document is built either way. */
  isDocsServed: boolean
}

/**
 * Collects every route's zod schemas into an OpenAPI 3.1 document (bearer JWT required unless a
 * route says `security: []`) and serves Swagger UI with a CSP that lets it load
 * (security-headers.test.ts). Register it before any route.
 */
export const openApiPlugin = fp<OpenApiPluginOptions>(
  async (app, { isDocsServed }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Weave API',
          version: '1.0.0',
          description:
            'Control plane for agent workflows that pause for a person, resume later and survive ' +
            'crashes. Errors are RFC 9457 problem details (application/problem+json).',
          license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        },
        servers: [{ url: '/', description: 'This Weave server' }],
        components: {
          securitySchemes: {
            bearerAuth: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'A JWT whose tenant claim (`tid`) and `scope` decide what it may do.',
            },
          },
        },
        security: [{ bearerAuth: [] }],
        tags: TAGS,
      },
      transform: transformRoute,
      transformObject: transformDocument,
    })
    if (isDocsServed) {
      await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: DOCS_CSP })
    }
  },
  { name: 'weave-openapi' },
)

/**
 * A route's schemas as zod-derived JSON Schema. The zod transform keeps only a response's
 * description and media schemas; the `headers` of a response entry and the `examples` of each of
 * its media types (problemResponses, the routes' success answers) are carried over here.
 */
const transformRoute: SwaggerTransform = (route) => {
  const result = jsonSchemaTransform(route) as { schema: Record<string, unknown>; url: string }
  const declared = route.schema?.response
  const transformed = result.schema?.response
  if (!isRecord(declared) || !isRecord(transformed)) return result
  for (const [status, entry] of Object.entries(declared)) {
    const target = transformed[status]
    if (!isRecord(entry) || !isRecord(target)) continue
    if (isRecord(entry.headers)) target.headers = entry.headers
    if (!isRecord(entry.content) || !isRecord(target.content)) continue
    for (const [type, media] of Object.entries(entry.content)) {
      const targetMedia = target.content[type]
      if (isRecord(media) && isRecord(targetMedia) && isRecord(media.examples)) {
        targetMedia.examples = media.examples
      }
    }
  }
  return result
}

const transformDocument: SwaggerTransformObject = (document) =>
  finishOpenApiDocument(jsonSchemaTransformObject(document))

const TOP_LEVEL_ORDER = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'security',
  'tags',
  'paths',
  'webhooks',
  'components',
  'externalDocs',
]

/**
 * The document with a stable key order (paths, methods, responses and components sorted), so the
 * committed openapi/openapi.json only changes when the API does.
 */
export function sortOpenApiDocument(document: object): Record<string, unknown> {
  const doc = document as Record<string, unknown>
  const sorted: Record<string, unknown> = {}
  const keys = [
    ...TOP_LEVEL_ORDER.filter((key) => key in doc),
    ...Object.keys(doc)
      .filter((key) => !TOP_LEVEL_ORDER.includes(key))
      .sort(),
  ]
  for (const key of keys) sorted[key] = doc[key]
  if (isRecord(sorted.paths)) {
    sorted.paths = mapSorted(sorted.paths, (item) =>
      isRecord(item) ? mapSorted(item, sortOperation) : item,
    )
  }
  if (isRecord(sorted.components)) {
    sorted.components = mapSorted(sorted.components, (group) =>
      isRecord(group) ? mapSorted(group, (entry) => entry) : group,
    )
  }
  return sorted
}

function sortOperation(operation: unknown): unknown {
  if (!isRecord(operation) || !isRecord(operation.responses)) return operation
  return { ...operation, responses: mapSorted(operation.responses, (response) => response) }
}

function mapSorted(
  record: Record<string, unknown>,
  map: (value: unknown) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, map(record[key])]),
  )
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
