import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { locationHeader, problemResponses } from '../http/problem-responses.js'
import {
  GraphPage,
  GraphParams,
  GraphVersionParams,
  GraphVersionView,
  GraphView,
  ListGraphsQuery,
  RegisterGraphBody,
  RegisteredGraph,
  TopologyQuery,
  TopologyView,
} from '../schemas/graphs.js'
import { AppError } from '../http/app-errors.js'
import type { ApiServices } from '../services/api-services.js'
import { DEFAULT_SPEC_BODY_LIMIT_BYTES, type GraphService } from '../services/graph-service.js'
import { topologyToMermaid } from '../services/mermaid.js'
import { auditContext } from './audit-context.js'

const TAGS = ['graphs']

/** `/v1/graphs`: register, list, read, draw and archive graph specs. */
export const graphRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, { graphs }) => {
  // The OpenAPI document registers the routes without services: the default limit stands in.
  const specLimit =
    (graphs as GraphService | undefined)?.specBodyLimitBytes ?? DEFAULT_SPEC_BODY_LIMIT_BYTES
  app.post(
    '/v1/graphs',
    {
      onRequest: app.requireScope('graphs:write'),
      // A spec is compiled and stored whole: its size is bounded below the general body limit.
      bodyLimit: specLimit,
      // Fastify's own refusal names the general limit; a declared length is refused here first.
      preParsing: async (request) => {
        if (Number(request.headers['content-length'] ?? 0) > specLimit) {
          throw new AppError(
            'payload-too-large',
            `A graph registration body is limited to ${specLimit} bytes.`,
          )
        }
      },
      schema: {
        operationId: 'registerGraph',
        summary: 'Register a graph spec (a new version unless it equals the latest)',
        description:
          'The spec follows the JSON Schema at `/schemas/graph-spec.json` (and the whole body ' +
          '`/schemas/graph-registration.json`); a top-level `$schema` in either is ignored. ' +
          'Subgraph steps named without a version are bound to the latest version of their ' +
          'graph at registration (`subgraphVersions` of the version). Registering un-archives ' +
          'an archived graph. 413: the body is larger than the spec limit (256 KiB unless ' +
          'configured otherwise); 422: the spec is invalid, every problem listed.',
        tags: TAGS,
        body: RegisterGraphBody,
        response: {
          200: {
            description: "The spec's digest equals the latest version's: no new version",
            headers: { Location: VERSION_LOCATION },
            content: { 'application/json': { schema: RegisteredGraph } },
          },
          201: {
            description: 'A new version was registered',
            headers: { Location: VERSION_LOCATION },
            content: { 'application/json': { schema: RegisteredGraph } },
          },
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request body is invalid: 1 problem.',
              errors: [
                {
                  path: '/body/name',
                  message: 'Invalid string: must match pattern /^[a-z0-9][a-z0-9._-]{0,99}$/',
                },
              ],
            },
            'malformed-request',
            401,
            403,
            {
              problem: 'payload-too-large',
              detail: 'A graph registration body is limited to 262144 bytes.',
            },
            415,
            'invalid-graph-spec',
            429,
          ),
        },
      },
    },
    async (request, reply) => {
      // `$schema` names a schema for editors: it is no part of the graph, nor of its digest.
      const { $schema: _bodySchema, ...body } = request.body
      const { graph, created } = await graphs.register(
        request.tenant,
        request.principal,
        { ...body, spec: withoutSchemaKey(body.spec) },
        auditContext(request),
      )
      const location = `/v1/graphs/${graph.name}/versions/${graph.version}`
      return reply
        .code(created ? 201 : 200)
        .header('location', location)
        .send(graph)
    },
  )

  app.get(
    '/v1/graphs',
    {
      onRequest: app.requireScope('graphs:read'),
      schema: {
        operationId: 'listGraphs',
        summary: "List the tenant's graphs, newest first",
        description:
          "Each graph with its latest version's number, digest and description, newest first; " +
          'archived graphs only with `includeArchived=true`. Paged with `limit` and `cursor`.',
        tags: TAGS,
        querystring: ListGraphsQuery,
        response: { 200: GraphPage, ...problemResponses(400, 'invalid-cursor', 401, 403, 429) },
      },
    },
    async (request) => graphs.list(request.tenant, request.query),
  )

  app.get(
    '/v1/graphs/:name',
    {
      onRequest: app.requireScope('graphs:read'),
      schema: {
        operationId: 'getGraph',
        summary: 'Get a graph: its latest version and every version',
        description:
          'The graph with its latest version (spec included) and a summary of every version, ' +
          'newest first. An archived graph is still shown, with `archivedAt`.',
        tags: TAGS,
        params: GraphParams,
        response: { 200: GraphView, ...problemResponses(401, 403, 'graph-not-found', 429) },
      },
    },
    async (request) => graphs.get(request.tenant, request.params.name),
  )

  app.get(
    '/v1/graphs/:name/versions/:version',
    {
      onRequest: app.requireScope('graphs:read'),
      schema: {
        operationId: 'getGraphVersion',
        summary: 'Get one version of a graph with its spec as stored',
        description:
          'The spec as stored (defaults applied), its digest, and the version each subgraph ' +
          'step named without one runs.',
        tags: TAGS,
        params: GraphVersionParams,
        response: {
          200: GraphVersionView,
          ...problemResponses(401, 403, 'graph-not-found', 'graph-version-not-found', 429),
        },
      },
    },
    async (request) => graphs.version(request.tenant, request.params.name, request.params.version),
  )

  app.get(
    '/v1/graphs/:name/topology',
    {
      onRequest: app.requireScope('graphs:read'),
      schema: {
        operationId: 'getGraphTopology',
        summary: "Get a graph's nodes and edges, as JSON or a Mermaid flowchart",
        description:
          'The steps of a version (the latest by default) and the edges its routing can take, ' +
          'labelled with their branch; `to: null` ends the run. `format=mermaid` answers a ' +
          'Mermaid flowchart as text.',
        tags: TAGS,
        params: GraphParams,
        querystring: TopologyQuery,
        response: {
          200: {
            description: 'The topology (`format=json`) or a Mermaid flowchart (`format=mermaid`)',
            content: {
              'application/json': { schema: TopologyView },
              'text/plain': { schema: z.string().meta({ examples: [MERMAID_EXAMPLE] }) },
            },
          },
          ...problemResponses(
            {
              problem: 'validation-failed',
              detail: 'The request query is invalid: 1 problem.',
              errors: [
                {
                  path: '/query/format',
                  message: 'Invalid option: expected one of "json"|"mermaid"',
                },
              ],
            },
            401,
            403,
            'graph-not-found',
            'graph-version-not-found',
            429,
          ),
        },
      },
    },
    async (request, reply) => {
      const { name } = request.params
      const { topology, entry } = await graphs.topology(request.tenant, name, request.query.version)
      if (request.query.format === 'json') return reply.send(topology)
      return reply.type('text/plain; charset=utf-8').send(topologyToMermaid(topology, entry))
    },
  )

  app.delete(
    '/v1/graphs/:name',
    {
      onRequest: app.requireScope('graphs:write'),
      schema: {
        operationId: 'archiveGraph',
        summary: 'Archive a graph: no new runs; existing runs finish',
        description:
          'An archived graph refuses new runs and forks (409 `graph-archived`) and is left out ' +
          'of the list by default; runs already started finish. Registering a spec under its ' +
          'name un-archives it.',
        tags: TAGS,
        params: GraphParams,
        response: { 200: GraphView, ...problemResponses(401, 403, 'graph-not-found', 429) },
      },
    },
    async (request) =>
      graphs.archive(request.tenant, request.principal, request.params.name, auditContext(request)),
  )
}

const VERSION_LOCATION = locationHeader('The registered version', '/v1/graphs/refunds/versions/2')

/** A spec without the `$schema` member editors use: what the registry validates and hashes. */
function withoutSchemaKey(spec: unknown): unknown {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec) || !('$schema' in spec)) {
    return spec
  }
  const { $schema: _schema, ...rest } = spec as Record<string, unknown>
  return rest
}

const MERMAID_EXAMPLE = `flowchart TD
  start(("start"))
  s0["classify (set)"]
  s1["review (approval)"]
  done(("end"))
  start --> s0
  s0 -->|"high"| s1
  s0 -->|"default"| done
  s1 --> done
`
