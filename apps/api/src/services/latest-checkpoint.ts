import { checkpointNamespace, type LoadedCheckpoint, type Store } from '@weave/kernel'
import type { PgStore } from '@weave/pgstore'
import { readCheckpoint } from './checkpoints.js'

// A graph's checkpoint namespace is the kernel's head followed by the graph's name and a run's
// latest key is its id (docs/kernel.md, Checkpoints): what weave_read_run reads ahead, before the
// kernel asks.
const CHECKPOINT_NAMESPACE_HEAD = checkpointNamespace('')

/**
 * The stored namespace of a graph's checkpoints in `store`, without the graph's name: what
 * weave_read_run (readRunForView) needs to read a run's latest checkpoint in the run's statement.
 */
export function checkpointNsHead(store: PgStore): string {
  return store.namespaceColumn(CHECKPOINT_NAMESPACE_HEAD)
}

/**
 * A run's latest checkpoint decoded from the stored text read with its run (null: none stored),
 * exactly as readCheckpoint decodes it: the kernel reads it through a store that answers the
 * address read ahead with that text. Should the kernel ask for another address, `store` answers,
 * so the view stays right and only costs a statement more (run-read.int.test.ts pins the address
 * and counts the statements).
 * @throws CorruptCheckpointError, UnsupportedCheckpointSchemaError (server faults)
 */
export function decodeLatestCheckpoint(
  store: PgStore,
  run: { id: string; graphName: string },
  stored: string | null,
): Promise<LoadedCheckpoint | null> {
  // None stored: what the kernel's read would answer, without building its not-found error.
  if (stored === null) return Promise.resolve(null)
  const ns = checkpointNsHead(store) + run.graphName
  return readCheckpoint(new ReadAheadStore(store, ns, run.id, stored), run.graphName, run.id)
}

/**
 * A read-only view of `store` that knows the value at one (stored namespace, key) already. It is
 * only handed to the kernel's read, so a write through it is a bug, and refused.
 */
class ReadAheadStore implements Store {
  constructor(
    private readonly store: PgStore,
    private readonly ns: string,
    private readonly key: string,
    private readonly value: string,
  ) {}

  get(ns: string, key: string): Promise<string | undefined> {
    if (key === this.key && this.store.namespaceColumn(ns) === this.ns) {
      return Promise.resolve(this.value)
    }
    return this.store.get(ns, key)
  }

  list(ns: string, prefix: string): Promise<string[]> {
    return this.store.list(ns, prefix)
  }

  put(): Promise<void> {
    return refuseWrite()
  }

  delete(): Promise<void> {
    return refuseWrite()
  }

  tx<T>(): Promise<T> {
    return refuseWrite()
  }
}

function refuseWrite(): Promise<never> {
  return Promise.reject(new Error('a read-ahead checkpoint store is read-only'))
}
