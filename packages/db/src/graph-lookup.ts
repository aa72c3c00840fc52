import { and, desc, eq } from 'drizzle-orm'
import type { TenantTx } from './client.js'
import type { GraphVersionRow } from './graphs.js'
import { graphs, graphVersions } from './schema/graphs.js'

/** A graph's archive state and one of its versions, as a new run needs them. */
export interface GraphForRun {
  /** When the graph was archived, or null. */
  archivedAt: Date | null
  /** The version asked for (or the latest), or null when the graph has no such version. */
  version: GraphVersionRow | null
}

/**
 * The graph `name` and its version `version` (the latest when undefined) in one query, for a
 * run about to start: null when the graph does not exist.
 */
export async function getGraphForRun(
  tx: TenantTx,
  name: string,
  version: number | undefined,
): Promise<GraphForRun | null> {
  const isValidVersion =
    version === undefined ||
    (Number.isSafeInteger(version) && version >= 1 && version <= 2_147_483_647)
  const [row] = await tx.db
    .select({ archivedAt: graphs.archivedAt, version: graphVersions })
    .from(graphs)
    .leftJoin(
      graphVersions,
      and(
        eq(graphVersions.tenantId, graphs.tenantId),
        eq(graphVersions.graphName, graphs.name),
        version === undefined || !isValidVersion ? undefined : eq(graphVersions.version, version),
      ),
    )
    .where(and(eq(graphs.tenantId, tx.tenant), eq(graphs.name, name)))
    .orderBy(desc(graphVersions.version))
    .limit(1)
  if (!row) return null
  return { archivedAt: row.archivedAt, version: isValidVersion ? row.version : null }
}
