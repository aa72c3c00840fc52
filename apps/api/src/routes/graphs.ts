import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { problemResponses } from '../http/problem-responses.js'
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
          'Subgraph steps named without a version are bound to the latest version of their ' +
          'graph at registration (`subgraphVersions` of the version). 413: the body is larger ' +
          'than the spec limit (256 KiB unless configured otherwise); 422: the spec is invalid, ' +
          'every problem listed.',
        tags: TAGS,
        body: RegisterGraphBody,
        response: {
          200: {
            description: "The spec's digest equals the latest version's: no new version",
            content: { 'application/json': { schema: RegisteredGraph } },
          },
          201: {
            description: 'A new version was registered',
            content: { 'application/json': { schema: RegisteredGraph } },
          },
          ...problemResponses(400, 401, 403, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { graph, created } = await graphs.register(
        request.tenant,
        request.principal,
        request.body,
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
        tags: TAGS,
        querystring: ListGraphsQuery,
        response: { 200: GraphPage, ...problemResponses(400, 401, 403, 429) },
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
        tags: TAGS,
        params: GraphParams,
        response: { 200: GraphView, ...problemResponses(401, 403, 404, 429) },
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
        tags: TAGS,
        params: GraphVersionParams,
        response: { 200: GraphVersionView, ...problemResponses(401, 403, 404, 429) },
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
          ...problemResponses(400, 401, 403, 404, 429),
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
        tags: TAGS,
        params: GraphParams,
        response: { 200: GraphView, ...problemResponses(401, 403, 404, 429) },
      },
    },
    async (request) =>
      graphs.archive(request.tenant, request.principal, request.params.name, auditContext(request)),
  )
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
