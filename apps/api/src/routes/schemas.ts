import { createHash } from 'node:crypto'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  GRAPH_REGISTRATION_SCHEMA_PATH,
  GRAPH_SPEC_SCHEMA_PATH,
  graphRegistrationJsonSchema,
  graphSpecJsonSchema,
} from '../graph-spec-schema.js'
import { problemResponses } from '../http/problem-responses.js'
import type { ApiServices } from '../services/api-services.js'

/** The media type of a JSON Schema document. */
export const SCHEMA_CONTENT_TYPE = 'application/schema+json'

// A schema changes only with the server's version; an hour keeps editors from asking often, and
// the ETag lets them revalidate for nothing after.
const CACHE_CONTROL = 'public, max-age=3600'

interface ServedSchema {
  body: string
  etag: string
}

function served(schema: Record<string, unknown>): ServedSchema {
  const body = `${JSON.stringify(schema, null, 2)}\n`
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` }
}

/**
 * `/schemas/graph-spec.json` and `/schemas/graph-registration.json`: the JSON Schemas of a graph
 * spec and of a registration body, public (no token) and cacheable, so spec files can name them
 * in `$schema` and editors validate and complete them. Each schema's `$id` is its path.
 */
export const schemaRoutes: FastifyPluginAsyncZod<ApiServices> = async (app) => {
  const schemas: [string, string, string, ServedSchema][] = [
    [
      GRAPH_SPEC_SCHEMA_PATH,
      'getGraphSpecSchema',
      'The JSON Schema of a graph spec',
      served(graphSpecJsonSchema()),
    ],
    [
      GRAPH_REGISTRATION_SCHEMA_PATH,
      'getGraphRegistrationSchema',
      'The JSON Schema of a graph registration body',
      served(graphRegistrationJsonSchema()),
    ],
  ]
  for (const [path, operationId, summary, schema] of schemas) {
    app.get(
      path,
      {
        schema: {
          operationId,
          summary,
          description:
            'A JSON Schema (draft 2020-12) whose `$id` is this path, generated from the schema ' +
            "Weave validates with. Name it in a file's `$schema` (e.g. " +
            '`http://127.0.0.1:3000' +
            path +
            '`) and editors validate and complete the file; registration ignores `$schema`. ' +
            'What a schema cannot express (expressions, routes naming steps, subgraphs) is ' +
            'checked at registration (422). Cacheable: revalidate with `If-None-Match`.',
          tags: ['graphs'],
          security: [],
          response: {
            200: {
              description: 'The schema',
              headers: {
                ETag: {
                  description: "The schema's version; send it back in `If-None-Match`",
                  type: 'string',
                },
                'Cache-Control': {
                  description: 'Shared caches may keep it for an hour',
                  type: 'string',
                  examples: [CACHE_CONTROL],
                },
              },
              content: { [SCHEMA_CONTENT_TYPE]: { schema: z.record(z.string(), z.unknown()) } },
            },
            304: z
              .null()
              .meta({ description: 'Not modified: the `If-None-Match` ETag is current' }),
            ...problemResponses(429),
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', CACHE_CONTROL).header('etag', schema.etag)
        if (request.headers['if-none-match'] === schema.etag) return reply.code(304).send(null)
        return reply.type(SCHEMA_CONTENT_TYPE).send(schema.body)
      },
    )
  }
}
