import type { Graph } from '@weave/kernel'
import { compileGraph, GraphSpec, type CompileDeps, type CompiledGraph } from '@weave/spec'
import { type Database, withTenant } from './client.js'
import { getGraphVersion, getLatestGraphVersion } from './graphs.js'

/** Compile dependencies shared by every graph of a worker; the registry adds subgraph loading. */
export type BaseCompileDeps = Omit<CompileDeps, 'loadSubgraph' | 'hooks' | 'approvals'>

/** Compile dependencies that belong to one tenant: its step hooks and approval decisions. */
export type TenantCompileDeps = Pick<CompileDeps, 'hooks' | 'approvals'>

/** Thrown when a run names a graph version that is not registered. */
export class GraphNotFoundError extends Error {
  override name = 'GraphNotFoundError'
  readonly code = 'graph-not-found'
}

const MAX_CACHED = 500

/**
 * Compiles each (tenant, graph, version) once and reuses it for every run: a compiled Graph holds
 * no per-run data. Versions are immutable, so entries never go stale; the oldest are dropped
 * beyond MAX_CACHED.
 */
export class GraphRegistry {
  readonly #cache = new Map<string, Promise<CompiledGraph>>()

  constructor(
    private readonly database: Database,
    private readonly deps: BaseCompileDeps = {},
    private readonly tenantDeps: (tenant: string) => TenantCompileDeps = () => ({}),
  ) {}

  /** The compiled graph; `version` undefined means the latest. @throws GraphNotFoundError */
  async get(tenant: string, name: string, version?: number): Promise<CompiledGraph> {
    const resolved = version ?? (await this.#latestVersion(tenant, name))
    const key = `${tenant}\u0000${name}\u0000${resolved}`
    let compiled = this.#cache.get(key)
    if (!compiled) {
      compiled = this.#compile(tenant, name, resolved)
      this.#cache.set(key, compiled)
      compiled.catch(() => this.#cache.delete(key))
      if (this.#cache.size > MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!)
    }
    return compiled
  }

  async #latestVersion(tenant: string, name: string): Promise<number> {
    const row = await withTenant(this.database, tenant, (tx) => getLatestGraphVersion(tx, name))
    if (!row) throw new GraphNotFoundError(`graph "${name}" is not registered`)
    return row.version
  }

  async #compile(tenant: string, name: string, version: number): Promise<CompiledGraph> {
    const row = await withTenant(this.database, tenant, (tx) => getGraphVersion(tx, name, version))
    if (!row) throw new GraphNotFoundError(`graph "${name}" version ${version} is not registered`)
    const spec = GraphSpec.parse(row.spec)
    const bound = row.subgraphVersions
    return compileGraph(name, spec, {
      ...this.deps,
      ...this.tenantDeps(tenant),
      // A child named without a version runs the version bound when this one was registered,
      // so every worker runs the same child whatever it compiled first.
      loadSubgraph: async (child: string, childVersion?: number): Promise<Graph> =>
        (await this.get(tenant, child, childVersion ?? bound[child])).graph,
    })
  }
}
