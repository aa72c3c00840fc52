import { getRun, withTenant, type Database, type RunRow } from '@weave/db'
import { loadCheckpoint, merge, type State } from '@weave/kernel'
import { buildMergeConfig, withoutProtocolKeys, type GraphSpec } from '@weave/spec'
import { tenantStore } from './tenant-store.js'

// A chain of runs that never wrote a checkpoint (each superseded before its first step) is
// short; the bound only stops a corrupted chain from looping.
const MAX_BASE_HOPS = 10_000

/**
 * The state a thread's run starts from: the latest checkpoint of its base run (or, for a base
 * that never wrote one, of that run's own base, and so on), without the engine's `__` keys, with
 * the run's input merged in by the graph's merge policies. Read when the run starts, so a run
 * queued behind another starts from where that one ended.
 */
export async function threadStartState(
  database: Database,
  run: RunRow,
  spec: GraphSpec,
): Promise<State> {
  const store = tenantStore(database.pool, run.tenantId)
  let base: State = {}
  let baseId = run.baseRunId
  for (let hops = 0; baseId !== null && hops < MAX_BASE_HOPS; hops++) {
    const id: string = baseId
    const baseRun = await withTenant(database, run.tenantId, (tx) => getRun(tx, id))
    if (!baseRun) break
    if (baseRun.checkpointSeq > 0) {
      const checkpoint = await loadCheckpoint(store, baseRun.graphName, baseRun.id)
      base = withoutProtocolKeys(checkpoint.state)
      break
    }
    baseId = baseRun.baseRunId
  }
  const config = spec.merge === undefined ? undefined : buildMergeConfig(spec.merge)
  return merge(base, withoutProtocolKeys(run.input as State), config)
}
