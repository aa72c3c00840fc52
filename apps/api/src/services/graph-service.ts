import {
  archiveGraph,
  getGraph,
  getGraphVersion,
  getLatestGraphVersion,
  listGraphVersions,
  listGraphs,
  registerGraphVersion,
  withTenant,
  type GraphRow,
  type GraphVersionRow,
  type GraphVersionSummary as GraphVersionSummaryRow,
  type TenantTx,
} from '@weave/db'
import type { Principal } from '../auth/principal.js'
import { NotFoundError, UnprocessableError } from '../http/app-errors.js'
import type {
  GraphPage,
  GraphVersionSummary,
  GraphVersionView,
  GraphView,
  RegisterGraphBody,
  RegisteredGraph,
  TopologyView,
} from '../schemas/graphs.js'
import {
  createEgressPolicy,
  GraphName,
  GraphSpec,
  pinMcpTools,
  specDigest,
  specTopology,
  validateSpec,
  type McpListingDeps,
} from '@weave/spec'
import type { AuditContext, ServiceDeps } from './deps.js'
import { auditRequest } from './audit-request.js'

/** The largest graph registration body by default, in bytes: a spec is a small document. */
export const DEFAULT_SPEC_BODY_LIMIT_BYTES = 256 * 1024

// A registration waits for the MCP servers its spec names; one that does not answer in this
// time is reported as unreachable.
const MCP_LISTING_TIMEOUT_MS = 10_000

/** Options of the graph service. */
export interface GraphServiceOptions {
  /** The largest graph registration body, in bytes (default DEFAULT_SPEC_BODY_LIMIT_BYTES). */
  specBodyLimitBytes?: number
  /**
   * How the MCP servers a spec names are listed to pin its mcp tools: the http steps' egress
   * policy (default: public hosts only) and a deadline.
   */
  mcp?: McpListingDeps
}

/** The graph registry as the API offers it. */
export interface GraphService {
  /** The largest graph registration body this service takes, in bytes. */
  readonly specBodyLimitBytes: number
  /**
   * Validates and registers a spec: a new version, or the latest when its digest is the same. A
   * new version binds each subgraph it names without a version to that graph's latest version,
   * so its runs keep running the children it was registered with, and stores each mcp tool
   * pinned to the tool its server lists now (pinMcpTools): the digest covers the pins.
   * @throws {UnprocessableError} with every problem of an invalid spec, and every mcp tool that
   *   could not be pinned (its server unreachable or refused by egress, the tool missing)
   */
  register(
    tenant: string,
    principal: Principal,
    body: RegisterGraphBody,
    context: AuditContext,
  ): Promise<{ graph: RegisteredGraph; created: boolean }>
  /** The tenant's graphs, newest first. @throws InvalidCursorError (`invalid-cursor`) */
  list(
    tenant: string,
    query: { limit: number; cursor?: string | undefined; includeArchived: boolean },
  ): Promise<GraphPage>
  /** A graph with its latest version and version list. @throws {NotFoundError} */
  get(tenant: string, name: string): Promise<GraphView>
  /** One version with its spec. @throws {NotFoundError} */
  version(tenant: string, name: string, version: string): Promise<GraphVersionView>
  /** The topology of a version (the latest by default) and its entry. @throws {NotFoundError} */
  topology(
    tenant: string,
    name: string,
    version?: number,
  ): Promise<{ topology: TopologyView; entry: string }>
  /** Archives a graph: no new runs; existing runs finish. @throws {NotFoundError} */
  archive(
    tenant: string,
    principal: Principal,
    name: string,
    context: AuditContext,
  ): Promise<GraphView>
}

const MAX_VERSION = 2_147_483_647

/** Builds the {@link GraphService}. */
export function createGraphService(
  { database }: Pick<ServiceDeps, 'database'>,
  options: GraphServiceOptions = {},
): GraphService {
  const mcp = { egress: createEgressPolicy([]), timeoutMs: MCP_LISTING_TIMEOUT_MS, ...options.mcp }
  return {
    specBodyLimitBytes: options.specBodyLimitBytes ?? DEFAULT_SPEC_BODY_LIMIT_BYTES,

    async register(tenant, principal, body, context) {
      // Listing MCP servers waits on the network: before the transaction, not holding it open.
      const pinned = await pinMcpTools(body.spec, mcp)
      return withTenant(database, tenant, async (tx) => {
        const result = await validateSpec(pinned.spec, {
          selfName: body.name,
          // Validation resolves subgraphs concurrently; one transaction runs one query at a time.
          resolveGraph: oneAtATime(async (name: string, version?: number) => {
            const row = await findVersion(tx, name, version)
            return row ? GraphSpec.parse(row.spec) : undefined
          }),
        })
        const problems = [...pinned.problems, ...(result.ok ? [] : result.problems)]
        if (!result.ok || problems.length > 0) {
          const errors = problems.map((p) => ({
            path: `/body/spec${p.path}`,
            message: p.message,
          }))
          throw new UnprocessableError(
            `The graph spec is invalid: ${errors.length} problem${errors.length === 1 ? '' : 's'}.`,
            errors,
            { problem: 'invalid-graph-spec' },
          )
        }
        const wasArchived = Boolean((await getGraph(tx, body.name))?.archivedAt)
        const subgraphVersions = await latestSubgraphVersions(tx, result.spec)
        const registered = await registerGraphVersion(tx, {
          name: body.name,
          spec: result.spec,
          digest: specDigest(result.spec),
          description: body.description ?? null,
          createdBy: principal.subject,
          subgraphVersions,
        })
        // Registering un-archives an archived graph: a change worth its audit event too.
        if (registered.created || wasArchived) {
          await auditRequest(
            tx,
            { principal, context },
            {
              action: 'graph.registered',
              target: { kind: 'graph', id: body.name },
              details: {
                version: registered.version,
                digest: registered.digest,
                created: registered.created,
                subgraphVersions,
              },
            },
          )
        }
        const { name, version, digest, createdAt } = registered
        return {
          graph: { name, version, digest, createdAt: createdAt.toISOString() },
          created: registered.created,
        }
      })
    },

    async list(tenant, query) {
      const page = await withTenant(database, tenant, (tx) => listGraphs(tx, query))
      return {
        items: page.items.map((g) => ({
          name: g.name,
          latestVersion: g.latestVersion,
          digest: g.digest,
          description: g.description,
          archivedAt: g.archivedAt?.toISOString() ?? null,
          createdAt: g.createdAt.toISOString(),
          updatedAt: g.updatedAt.toISOString(),
        })),
        nextCursor: page.nextCursor,
      }
    },

    async get(tenant, name) {
      return withTenant(database, tenant, async (tx) => graphView(tx, await requireGraph(tx, name)))
    },

    async version(tenant, name, version) {
      const number = /^[1-9][0-9]{0,9}$/.test(version) ? Number(version) : NaN
      const row = await withTenant(database, tenant, async (tx) =>
        isGraphName(name) && number <= MAX_VERSION ? getGraphVersion(tx, name, number) : null,
      )
      if (!row) throw versionNotFound(name, version)
      return versionView(row)
    },

    async topology(tenant, name, version) {
      const row = await withTenant(database, tenant, async (tx) => {
        await requireGraph(tx, name)
        return findVersion(tx, name, version)
      })
      if (!row) throw versionNotFound(name, String(version))
      const spec = GraphSpec.parse(row.spec)
      return { topology: orderFromEntry(specTopology(spec), spec.entry), entry: spec.entry }
    },

    async archive(tenant, principal, name, context) {
      return withTenant(database, tenant, async (tx) => {
        const graph = await requireGraph(tx, name)
        if (graph.archivedAt) return graphView(tx, graph)
        const archived = (await archiveGraph(tx, name)) as GraphRow
        await auditRequest(
          tx,
          { principal, context },
          {
            action: 'graph.archived',
            target: { kind: 'graph', id: name },
          },
        )
        return graphView(tx, archived)
      })
    },
  }
}

/**
 * The topology with steps in breadth-first order from the entry (edges follow their step). A
 * spec is stored as jsonb, which keeps no key order, so document order cannot be recovered.
 */
function orderFromEntry(topology: TopologyView, entry: string): TopologyView {
  const order = new Map<string, number>()
  const queue = [entry]
  for (let step = queue.shift(); step !== undefined; step = queue.shift()) {
    if (order.has(step)) continue
    order.set(step, order.size)
    for (const edge of topology.edges)
      if (edge.from === step && edge.to !== null) queue.push(edge.to)
  }
  const rank = (step: string) => order.get(step) ?? order.size
  return {
    nodes: topology.nodes.toSorted((a, b) => rank(a.id) - rank(b.id)),
    edges: topology.edges.toSorted((a, b) => rank(a.from) - rank(b.from)),
  }
}

/**
 * The latest version of each graph a spec's subgraph steps (top level and parallel branches)
 * name without a version: what a new version binds them to. Validation has resolved each one.
 */
async function latestSubgraphVersions(
  tx: TenantTx,
  spec: GraphSpec,
): Promise<Record<string, number>> {
  const bound: Record<string, number> = {}
  for (const child of unversionedSubgraphs(spec)) {
    const latest = await getLatestGraphVersion(tx, child)
    if (latest) bound[child] = latest.version
  }
  return bound
}

/** The graphs a spec's subgraph steps name without a version, each once. */
function unversionedSubgraphs(spec: GraphSpec): Set<string> {
  const names = new Set<string>()
  for (const step of Object.values(spec.steps)) {
    const branches = step.kind === 'parallel' ? Object.values(step.branches) : [step]
    for (const branch of branches) {
      if (branch.kind === 'subgraph' && branch.version === undefined) names.add(branch.graph)
    }
  }
  return names
}

/** `fn`, with each call waiting until the previous one settled. */
function oneAtATime<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  let last: Promise<unknown> = Promise.resolve()
  return (...args) => {
    const next = last.then(() => fn(...args))
    last = next.catch(() => undefined)
    return next
  }
}

function isGraphName(name: string): boolean {
  return GraphName.safeParse(name).success
}

async function requireGraph(tx: TenantTx, name: string): Promise<GraphRow> {
  const graph = isGraphName(name) ? await getGraph(tx, name) : null
  if (!graph) throw new NotFoundError(`No graph named "${name}".`, { problem: 'graph-not-found' })
  return graph
}

async function findVersion(
  tx: TenantTx,
  name: string,
  version: number | undefined,
): Promise<GraphVersionRow | null> {
  if (!isGraphName(name)) return null
  return version === undefined
    ? getLatestGraphVersion(tx, name)
    : getGraphVersion(tx, name, version)
}

function versionNotFound(name: string, version: string): NotFoundError {
  return new NotFoundError(`Graph "${name}" has no version ${version}.`, {
    problem: 'graph-version-not-found',
  })
}

async function graphView(tx: TenantTx, graph: GraphRow): Promise<GraphView> {
  const latest = await getLatestGraphVersion(tx, graph.name)
  // A graph row is only ever inserted with its first version, in one transaction.
  if (!latest) throw versionNotFound(graph.name, 'latest')
  const versions = await listGraphVersions(tx, graph.name)
  return {
    name: graph.name,
    archivedAt: graph.archivedAt?.toISOString() ?? null,
    createdAt: graph.createdAt.toISOString(),
    latest: versionView(latest),
    versions: versions.map(versionSummary),
  }
}

function versionSummary(row: GraphVersionSummaryRow): GraphVersionSummary {
  return {
    version: row.version,
    digest: row.digest,
    description: row.description,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  }
}

function versionView(row: GraphVersionRow): GraphVersionView {
  return {
    ...versionSummary(row),
    name: row.graphName,
    spec: row.spec as Record<string, unknown>,
    subgraphVersions: row.subgraphVersions,
  }
}
