import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import { decodeTimeCursor, pageSize, toPage } from './cursor.js'
import { hashJson } from './hash.js'
import type { Page, PageOptions } from './page.js'
import { graphs, graphVersions } from './schema/graphs.js'
import { tenants } from './schema/tenants.js'

/** A graph row. */
export type GraphRow = typeof graphs.$inferSelect

/** A stored version of a graph's spec. */
export type GraphVersionRow = typeof graphVersions.$inferSelect

/** A version without its spec, for version lists. */
export type GraphVersionSummary = Omit<GraphVersionRow, 'spec' | 'subgraphVersions'>

/** A graph with its latest version, for graph lists. */
export interface GraphSummary {
  name: string
  archivedAt: Date | null
  createdAt: Date
  latestVersion: number
  digest: string
  description: string | null
  updatedAt: Date
}

/** What `registerGraphVersion` stores. */
export interface RegisterGraphVersionInput {
  name: string
  spec: unknown
  /** SHA-256 of the spec's canonical JSON; computed with `hashJson(spec)` when absent. */
  digest?: string
  description?: string | null
  createdBy: string
  /** The version each subgraph named without one binds to (see graph_versions.subgraph_versions). */
  subgraphVersions?: Record<string, number>
}

/** The version a registration resolved to; `created` is false when the digest matched. */
export interface RegisteredGraphVersion {
  name: string
  version: number
  digest: string
  createdAt: Date
  created: boolean
}

/**
 * Registers a spec as the graph's next version, unless its digest equals the latest version's,
 * in which case that version is returned with `created: false`. Creates the tenant and graph on
 * first use and un-archives an archived graph. Concurrent registrations of one graph serialise
 * on the graph row (graphs.int.test.ts).
 */
export async function registerGraphVersion(
  tx: TenantTx,
  input: RegisterGraphVersionInput,
): Promise<RegisteredGraphVersion> {
  const digest = input.digest ?? hashJson(input.spec)
  await tx.db.insert(tenants).values({ id: tx.tenant }).onConflictDoNothing()
  await tx.db
    .insert(graphs)
    .values({ tenantId: tx.tenant, name: input.name })
    .onConflictDoUpdate({ target: [graphs.tenantId, graphs.name], set: { archivedAt: null } })
  const latest = await getLatestGraphVersion(tx, input.name)
  if (latest && latest.digest === digest) {
    return {
      name: input.name,
      version: latest.version,
      digest,
      createdAt: latest.createdAt,
      created: false,
    }
  }
  const [row] = await tx.db
    .insert(graphVersions)
    .values({
      tenantId: tx.tenant,
      graphName: input.name,
      version: (latest?.version ?? 0) + 1,
      spec: input.spec,
      digest,
      description: input.description ?? null,
      createdBy: input.createdBy,
      subgraphVersions: input.subgraphVersions ?? {},
    })
    .returning()
  const created = row as GraphVersionRow
  return {
    name: input.name,
    version: created.version,
    digest,
    createdAt: created.createdAt,
    created: true,
  }
}

/** The graph named `name`, archived or not, or null. */
export async function getGraph(tx: TenantTx, name: string): Promise<GraphRow | null> {
  const [row] = await tx.db
    .select()
    .from(graphs)
    .where(and(eq(graphs.tenantId, tx.tenant), eq(graphs.name, name)))
  return row ?? null
}

/** The latest version of a graph, or null when the graph does not exist. */
export async function getLatestGraphVersion(
  tx: TenantTx,
  name: string,
): Promise<GraphVersionRow | null> {
  const [row] = await tx.db
    .select()
    .from(graphVersions)
    .where(and(eq(graphVersions.tenantId, tx.tenant), eq(graphVersions.graphName, name)))
    .orderBy(desc(graphVersions.version))
    .limit(1)
  return row ?? null
}

/** One version of a graph, or null. */
export async function getGraphVersion(
  tx: TenantTx,
  name: string,
  version: number,
): Promise<GraphVersionRow | null> {
  if (!Number.isSafeInteger(version) || version < 1 || version > 2_147_483_647) return null
  const [row] = await tx.db
    .select()
    .from(graphVersions)
    .where(
      and(
        eq(graphVersions.tenantId, tx.tenant),
        eq(graphVersions.graphName, name),
        eq(graphVersions.version, version),
      ),
    )
  return row ?? null
}

/** Every version of a graph without the specs, newest first (empty when the graph is unknown). */
export async function listGraphVersions(
  tx: TenantTx,
  name: string,
): Promise<GraphVersionSummary[]> {
  return tx.db
    .select({
      tenantId: graphVersions.tenantId,
      graphName: graphVersions.graphName,
      version: graphVersions.version,
      digest: graphVersions.digest,
      description: graphVersions.description,
      createdBy: graphVersions.createdBy,
      createdAt: graphVersions.createdAt,
    })
    .from(graphVersions)
    .where(and(eq(graphVersions.tenantId, tx.tenant), eq(graphVersions.graphName, name)))
    .orderBy(desc(graphVersions.version))
}

/** Options of `listGraphs`. */
export interface ListGraphsOptions extends PageOptions {
  /** Include archived graphs (default false). */
  includeArchived?: boolean
}

/**
 * The tenant's graphs with their latest version, newest graph first.
 * @throws InvalidCursorError when `cursor` is not one this function returned.
 */
export async function listGraphs(
  tx: TenantTx,
  options: ListGraphsOptions = {},
): Promise<Page<GraphSummary>> {
  const limit = pageSize(options.limit)
  const after = options.cursor ? decodeTimeCursor(options.cursor) : null
  const rows = await tx.db
    .select()
    .from(graphs)
    .where(
      and(
        eq(graphs.tenantId, tx.tenant),
        options.includeArchived ? undefined : isNull(graphs.archivedAt),
        after
          ? sql`(${graphs.createdAt}, ${graphs.name}) < (${after.at}::timestamptz, ${after.id})`
          : undefined,
      ),
    )
    .orderBy(desc(graphs.createdAt), desc(graphs.name))
    .limit(limit + 1)
  const page = toPage(rows, limit, (g) => [g.createdAt.toISOString(), g.name])
  if (page.items.length === 0) return { items: [], nextCursor: page.nextCursor }
  const latest = await tx.db
    .selectDistinctOn([graphVersions.graphName], {
      graphName: graphVersions.graphName,
      version: graphVersions.version,
      digest: graphVersions.digest,
      description: graphVersions.description,
      createdAt: graphVersions.createdAt,
    })
    .from(graphVersions)
    .where(
      and(
        eq(graphVersions.tenantId, tx.tenant),
        inArray(
          graphVersions.graphName,
          page.items.map((g) => g.name),
        ),
      ),
    )
    .orderBy(graphVersions.graphName, desc(graphVersions.version))
  const byName = new Map(latest.map((v) => [v.graphName, v]))
  const items: GraphSummary[] = []
  for (const g of page.items) {
    const v = byName.get(g.name)
    // A graph row is only ever inserted with its first version, in one transaction.
    if (!v) continue
    items.push({
      name: g.name,
      archivedAt: g.archivedAt,
      createdAt: g.createdAt,
      latestVersion: v.version,
      digest: v.digest,
      description: v.description,
      updatedAt: v.createdAt,
    })
  }
  return { items, nextCursor: page.nextCursor }
}

/**
 * Archives a graph: no new runs start on it; existing runs finish. Idempotent: an archived graph
 * keeps its first archive time. Returns the graph, or null when there is none.
 */
export async function archiveGraph(tx: TenantTx, name: string): Promise<GraphRow | null> {
  const [row] = await tx.db
    .update(graphs)
    .set({ archivedAt: sql`coalesce(${graphs.archivedAt}, now())` })
    .where(and(eq(graphs.tenantId, tx.tenant), eq(graphs.name, name)))
    .returning()
  return row ?? null
}
