import { MemStore } from '@weave/kernel'
import type { Json, RunResult, State, StepContext, StepEvent, Store } from '@weave/kernel'

/** A promise with its resolve/reject exposed, so tests await events instead of sleeping. */
export interface Deferred<T> {
  promise: Promise<T>
  resolve: (value: T) => void
  reject: (err: unknown) => void
}

/** Creates a Deferred. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (err: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Lets every pending microtask and one macrotask turn run, without waiting on a clock. */
export async function flush(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r))
}

/** One call seen by a RecordingStore; `inTx` marks calls made on a transaction's store. */
export interface StoreCall {
  op: 'get' | 'put' | 'delete' | 'list' | 'tx' | 'putMany'
  ns?: string
  key?: string
  value?: string
  entries?: Array<[string, string]>
  inTx: boolean
}

/** Options of a RecordingStore: whether it offers putMany, and which calls fail. */
export interface RecordingOptions {
  putMany?: boolean
  fail?: (call: StoreCall) => Error | undefined
}

/** Which store methods a RecordingStore forwards; `putMany` only when the inner store has it. */
interface Forwarder {
  calls: StoreCall[]
  options: RecordingOptions
}

function check(f: Forwarder, call: StoreCall): void {
  f.calls.push(call)
  const err = f.options.fail?.(call)
  if (err) throw err
}

function wrap(inner: Store, f: Forwarder, inTx: boolean): Store {
  const store: Store = {
    async get(ns, key) {
      check(f, { op: 'get', ns, key, inTx })
      return inner.get(ns, key)
    },
    async put(ns, key, value) {
      check(f, { op: 'put', ns, key, value, inTx })
      return inner.put(ns, key, value)
    },
    async delete(ns, key) {
      check(f, { op: 'delete', ns, key, inTx })
      return inner.delete(ns, key)
    },
    async list(ns, prefix) {
      check(f, { op: 'list', ns, key: prefix, inTx })
      return inner.list(ns, prefix)
    },
    async tx<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
      check(f, { op: 'tx', inTx })
      return inner.tx((t) => fn(wrap(t, f, true)))
    },
  }
  if (f.options.putMany !== false && inner.putMany) {
    const innerPutMany = inner.putMany.bind(inner)
    store.putMany = async (ns, entries) => {
      check(f, {
        op: 'putMany',
        ns,
        entries: entries.map(([k, v]) => [k, v] as [string, string]),
        inTx,
      })
      return innerPutMany(ns, entries)
    }
  }
  return store
}

/** A Store over a MemStore that records every call (transactions included) and can fail some. */
export class RecordingStore {
  readonly inner = new MemStore()
  readonly calls: StoreCall[] = []
  readonly store: Store

  constructor(options: RecordingOptions = {}) {
    this.store = wrap(this.inner, { calls: this.calls, options }, false)
  }

  /** The write calls (put, putMany, delete, tx) in order. */
  writes(): StoreCall[] {
    return this.calls.filter((c) => c.op !== 'get' && c.op !== 'list')
  }
}

/** Parses the stored checkpoint envelope at `key` of graph `graph`. */
export async function readCheckpoint(
  store: Store,
  graph: string,
  key: string,
): Promise<Record<string, unknown>> {
  const raw = await store.get(`checkpoint:${graph}`, key)
  if (raw === undefined) throw new Error(`no checkpoint at ${graph} ${key}`)
  return JSON.parse(raw) as Record<string, unknown>
}

/** Stores a raw checkpoint value (any JSON, or a string taken as is) for a test of reads. */
export async function writeRaw(
  store: Store,
  graph: string,
  key: string,
  value: unknown,
): Promise<void> {
  await store.put(
    `checkpoint:${graph}`,
    key,
    typeof value === 'string' ? value : JSON.stringify(value),
  )
}

/** A complete version-1 envelope; `over` replaces or adds fields. */
export function envelope(
  over: Record<string, unknown> & { run_id: string; graph: string; last_step: string },
): Record<string, unknown> {
  return {
    schema_version: 1,
    seq: 1,
    status: 'step_done',
    state: {},
    saved_at: new Date(0).toISOString(),
    ...over,
  }
}

/** The history key of `seq` for `runId`. */
export function historyKey(runId: string, seq: number): string {
  return `${runId}/${String(seq).padStart(12, '0')}`
}

/** True when `v` and everything reachable from it is frozen. */
export function isDeepFrozen(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true
  if (!Object.isFrozen(v)) return false
  return Object.values(v).every(isDeepFrozen)
}

/** A StepContext for calling routers directly. */
export function fakeContext(over: Partial<StepContext> = {}): StepContext {
  return {
    signal: new AbortController().signal,
    runId: 'run',
    graph: 'g',
    step: 's',
    seq: 1,
    ...over,
  }
}

/** Drains a stream into an array of events. */
export async function collect(events: AsyncIterable<StepEvent>): Promise<StepEvent[]> {
  const out: StepEvent[] = []
  for await (const e of events) out.push(e)
  return out
}

/** The result carried by the last event of a stream. */
export function resultOf(events: StepEvent[]): RunResult {
  const last = events.at(-1)
  if (last?.type !== 'result') throw new Error('the stream did not end with a result event')
  return last.result
}

/** A step that records its calls in `log` and returns `delta`. */
export function recordingStep(log: string[], name: string, delta: State = {}) {
  return (): State => {
    log.push(name)
    return delta
  }
}

/** The JSON copy the kernel makes of a value. */
export function jsonCopy<T>(v: T): Json {
  return JSON.parse(JSON.stringify(v)) as Json
}
