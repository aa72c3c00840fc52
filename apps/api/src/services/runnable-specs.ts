import { withTenant, type Database } from '@weave/db'
import { GraphSpec } from '@weave/spec'
import { LruMap } from './lru-map.js'
import { runnableVersion } from './runnable-graph.js'

/** A graph version a run may start on, with its spec parsed. */
export interface RunnableSpec {
  version: number
  /** The version's `graph_versions.digest`: a start on it checks the graph still has it. */
  digest: string
  spec: GraphSpec
}

/** A {@link RunnableSpec} and whether it came from the cache (and so may be out of date). */
export interface ResolvedSpec {
  runnable: RunnableSpec
  isCached: boolean
}

/** The specs of the graph versions runs start on, parsed once per process. */
export interface RunnableSpecs {
  /**
   * The graph's version `version` (the latest when undefined), from the cache unless `fresh`.
   * A cached one may be out of date: the graph archived, a newer version registered, or the graph
   * registered again under the same number; the start's statement checks it (weave_start_run).
   * @throws {NotFoundError} `graph-not-found`, `graph-version-not-found` (read from the database)
   * @throws {ConflictError} `graph-archived` (read from the database)
   */
  resolve(
    tenant: string,
    name: string,
    version: number | undefined,
    options?: { fresh?: boolean },
  ): Promise<ResolvedSpec>
}

/** How many graph versions, and latest versions of graphs, a process keeps by default. */
export const DEFAULT_RUNNABLE_SPECS = 4096

/**
 * Builds the cache of {@link RunnableSpecs}: parsing a spec compiles its JSONata expressions,
 * too much for every start. Versions are keyed by tenant, graph and number and replaced when
 * the database gives another digest for them; the latest version of each graph is kept
 * beside them. Both are bounded (least recently used dropped first).
 */
export function createRunnableSpecs(
  database: Pick<Database, 'db'>,
  capacity = DEFAULT_RUNNABLE_SPECS,
): RunnableSpecs {
  const versions = new LruMap<string, RunnableSpec>(capacity)
  const latest = new LruMap<string, number>(capacity)
  return {
    async resolve(tenant, name, version, { fresh = false } = {}) {
      const graphKey = JSON.stringify([tenant, name])
      if (!fresh) {
        const known = version ?? latest.get(graphKey)
        const cached = known === undefined ? undefined : versions.get(versionKey(graphKey, known))
        if (cached) return { runnable: cached, isCached: true }
      }
      const row = await withTenant(database, tenant, (tx) => runnableVersion(tx, name, version))
      const key = versionKey(graphKey, row.version)
      let runnable = versions.get(key)
      if (runnable?.digest !== row.digest) {
        runnable = { version: row.version, digest: row.digest, spec: GraphSpec.parse(row.spec) }
        versions.set(key, runnable)
      }
      if (version === undefined) latest.set(graphKey, row.version)
      return { runnable, isCached: false }
    },
  }
}

function versionKey(graphKey: string, version: number): string {
  return `${graphKey}#${version}`
}
