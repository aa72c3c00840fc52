import { GraphName as SpecGraphName } from '@weave/spec'
import { z } from 'zod'
import { JsonValue, PageQuery, Text, Timestamp, pageOf } from './common.js'

const EXAMPLE_SPEC = {
  entry: 'classify',
  input: {
    type: 'object',
    required: ['amount', 'customer'],
    properties: { amount: { type: 'number' }, customer: { type: 'string' } },
  },
  steps: {
    classify: {
      kind: 'set',
      values: { risk: "amount > 100 ? 'high' : 'low'" },
      next: { branch: 'risk', routes: { high: 'review' }, default: null },
    },
    review: { kind: 'approval', title: 'Refund {{ amount }} to {{ customer }}?' },
  },
}

/** A graph name: 1–100 lowercase letters, digits, `-`, `_`, `.`, starting alphanumeric. */
export const GraphName = SpecGraphName.meta({ examples: ['refunds'] })

// The graph spec's JSON Schema is generated from @weave/spec's zod schema (graph-spec-schema.ts)
// and added to the document as this component: the route validates a spec itself (422 with every
// problem), so the body schema only points at it.
const GRAPH_SPEC_REF = '#/components/schemas/GraphSpec'

/** `POST /v1/graphs`. */
export const RegisterGraphBody = z
  .strictObject({
    $schema: Text()
      .max(2048)
      .optional()
      .meta({
        description:
          'The JSON Schema of this document, for editors (`/schemas/graph-registration.json`); ' +
          'ignored',
      }),
    name: GraphName,
    spec: JsonValue.meta({
      description:
        'The graph spec (docs/graph-spec.md). A top-level `$schema` member is ignored: spec ' +
        'files may name `/schemas/graph-spec.json`',
      $ref: GRAPH_SPEC_REF,
    }),
    description: Text().max(1000).optional(),
  })
  .meta({
    id: 'RegisterGraphBody',
    examples: [{ name: 'refunds', spec: EXAMPLE_SPEC, description: 'Customer refunds' }],
  })
/** `POST /v1/graphs`. */
export type RegisterGraphBody = z.infer<typeof RegisterGraphBody>

/** The version a registration resolved to. */
export const RegisteredGraph = z
  .object({ name: z.string(), version: z.int(), digest: z.string(), createdAt: Timestamp })
  .meta({
    id: 'RegisteredGraph',
    examples: [
      {
        name: 'refunds',
        version: 2,
        digest: '9f2c6b1e0a4d8c7b3e5f1a2d4c6b8e0f9a1c3e5d7b9f0a2c4e6d8b0a1c3e5f7d',
        createdAt: '2025-01-31T09:30:00.000Z',
      },
    ],
  })
/** The version a registration resolved to. */
export type RegisteredGraph = z.infer<typeof RegisteredGraph>

/** A version of a graph without its spec. */
export const GraphVersionSummary = z
  .object({
    version: z.int(),
    digest: z.string(),
    description: z.string().nullable(),
    createdBy: z.string(),
    createdAt: Timestamp,
  })
  .meta({ id: 'GraphVersionSummary' })
/** A version of a graph without its spec. */
export type GraphVersionSummary = z.infer<typeof GraphVersionSummary>

/** One version of a graph with its spec, as stored (defaults applied). */
export const GraphVersionView = GraphVersionSummary.extend({
  name: z.string(),
  spec: z.record(z.string(), z.unknown()).meta({
    description: 'The spec as stored: defaults applied, without `$schema`',
    $ref: GRAPH_SPEC_REF,
  }),
  subgraphVersions: z.record(z.string(), z.int()).meta({
    description:
      'The version each subgraph step named without one runs: the latest when this version ' +
      'was registered',
    examples: [{ 'refund-checks': 3 }],
  }),
}).meta({ id: 'GraphVersion' })
/** One version of a graph with its spec. */
export type GraphVersionView = z.infer<typeof GraphVersionView>

/** A graph: its latest version and the list of every version, newest first. */
export const GraphView = z
  .object({
    name: z.string(),
    archivedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    latest: GraphVersionView,
    versions: z.array(GraphVersionSummary),
  })
  .meta({ id: 'Graph' })
/** A graph: its latest version and the list of every version. */
export type GraphView = z.infer<typeof GraphView>

/** A graph in the list of graphs. */
export const GraphSummary = z
  .object({
    name: z.string(),
    latestVersion: z.int(),
    digest: z.string(),
    description: z.string().nullable(),
    archivedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp.meta({ description: 'When the latest version was registered' }),
  })
  .meta({ id: 'GraphSummary' })
/** A graph in the list of graphs. */
export type GraphSummary = z.infer<typeof GraphSummary>

/** `GET /v1/graphs`. */
export const GraphPage = pageOf(GraphSummary).meta({ id: 'GraphPage' })
/** `GET /v1/graphs`. */
export type GraphPage = z.infer<typeof GraphPage>

/** `GET /v1/graphs` query. */
export const ListGraphsQuery = PageQuery.extend({
  includeArchived: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .meta({ description: 'Include archived graphs' }),
})

/** `/v1/graphs/{name}` path. */
export const GraphParams = z.object({ name: z.string().meta({ examples: ['refunds'] }) })

/** `/v1/graphs/{name}/versions/{version}` path. */
export const GraphVersionParams = GraphParams.extend({
  version: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, { error: 'must be a version number: 1, 2, …' })
    .meta({ description: 'A version number (1, 2, …)', examples: ['1'] }),
})

/** `GET /v1/graphs/{name}/topology` query. */
export const TopologyQuery = z.object({
  version: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .meta({ description: 'The version; the latest when absent' }),
  format: z.enum(['json', 'mermaid']).default('json'),
})

/** A graph's nodes and labelled edges, from its spec; `to: null` is the end of the run. */
export const TopologyView = z
  .object({
    nodes: z.array(
      z.object({
        id: z.string(),
        kind: z.string(),
        branches: z.array(z.object({ id: z.string(), kind: z.string() })).optional(),
      }),
    ),
    edges: z.array(
      z.object({ from: z.string(), to: z.string().nullable(), label: z.string().optional() }),
    ),
  })
  .meta({
    id: 'Topology',
    examples: [
      {
        nodes: [
          { id: 'classify', kind: 'set' },
          { id: 'review', kind: 'approval' },
        ],
        edges: [
          { from: 'classify', to: 'review', label: 'high' },
          { from: 'classify', to: null, label: 'default' },
          { from: 'review', to: null },
        ],
      },
    ],
  })
/** A graph's topology. */
export type TopologyView = z.infer<typeof TopologyView>
