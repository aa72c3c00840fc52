import {
  CheckpointNotFoundError,
  CheckpointWriteError,
  CorruptCheckpointError,
  UnsupportedCheckpointSchemaError,
} from './errors.js'
import type { State } from './json.js'
import { isPlainObject } from './json-copy.js'
import type { Store } from './store.js'

/** The checkpoint envelope version this kernel writes and reads. */
export const CHECKPOINT_SCHEMA_VERSION = 1

/** How a checkpointed step ended. */
export type CheckpointStatus = 'step_done' | 'yielded' | 'failed'

/** Whether a yielded step re-runs on resume (`mid_step`) or is finished (`after_step`). */
export type YieldPhase = 'mid_step' | 'after_step'

/** The stored checkpoint envelope (docs/kernel.md, Checkpoints). */
export interface Checkpoint {
  schema_version: number
  run_id: string
  graph: string
  seq: number
  last_step: string
  status: CheckpointStatus
  yield_phase?: YieldPhase
  state: State
  saved_at: string
  meta?: unknown
}

/** One entry of a run's history. */
export interface CheckpointInfo {
  seq: number
  lastStep: string
  status: CheckpointStatus
  yieldPhase?: YieldPhase
  savedAt: string
}

/** A checkpoint as read back: legacy envelopes are normalised into this shape. */
export interface LoadedCheckpoint {
  seq: number
  lastStep: string
  status: CheckpointStatus
  yieldPhase?: YieldPhase
  state: State
  savedAt: string
}

/** Which read is parsing: legacy envelopes without a phase mean different things to each. */
export type ReadPurpose = 'resume' | 'resumeAt' | 'history'

/** The namespace of a graph's checkpoints. */
export function checkpointNamespace(graph: string): string {
  return `checkpoint:${graph}`
}

/** The key of a history entry: `<runId>/<seq zero-padded to 12>`. */
export function historyKey(runId: string, seq: number): string {
  return `${runId}/${String(seq).padStart(12, '0')}`
}

/** True when `key` is exactly `<runId>/` + 12 digits (a child run's keys are longer). */
export function isHistoryKeyOf(runId: string, key: string): boolean {
  return (
    key.length === runId.length + 13 &&
    key.startsWith(`${runId}/`) &&
    /^\d{12}$/.test(key.slice(-12))
  )
}

/** Serialises a checkpoint envelope. Field order follows docs/kernel.md, Checkpoints. */
export function encodeCheckpoint(c: {
  runId: string
  graph: string
  seq: number
  lastStep: string
  status: CheckpointStatus
  yieldPhase?: YieldPhase
  state: State
  savedAt: Date
}): string {
  const envelope: Checkpoint = {
    schema_version: CHECKPOINT_SCHEMA_VERSION,
    run_id: c.runId,
    graph: c.graph,
    seq: c.seq,
    last_step: c.lastStep,
    status: c.status,
    ...(c.status === 'yielded' ? { yield_phase: c.yieldPhase ?? 'mid_step' } : {}),
    state: c.state,
    saved_at: c.savedAt.toISOString(),
  }
  return JSON.stringify(envelope)
}

const STATUSES: readonly string[] = ['step_done', 'yielded', 'failed']
const PHASES: readonly string[] = ['mid_step', 'after_step']

/**
 * Parses a stored checkpoint (docs/kernel.md), checking in the specified order: JSON object, then
 * a too-new schema before anything else, then legacy or version-1 fields.
 * @throws CorruptCheckpointError, UnsupportedCheckpointSchemaError
 */
export function parseCheckpoint(
  raw: string,
  runId: string,
  purpose: ReadPurpose,
  keySeq = 0,
): LoadedCheckpoint {
  let doc: unknown
  try {
    doc = JSON.parse(raw)
  } catch {
    throw new CorruptCheckpointError(runId, 'not JSON')
  }
  if (!isPlainObject(doc)) throw new CorruptCheckpointError(runId, 'not a JSON object')
  const version = doc.schema_version
  if (typeof version === 'number' && version > CHECKPOINT_SCHEMA_VERSION) {
    throw new UnsupportedCheckpointSchemaError(version, CHECKPOINT_SCHEMA_VERSION)
  }
  if (version === undefined || version === 0) return parseLegacy(doc, runId, purpose, keySeq)
  if (version !== 1) throw new CorruptCheckpointError(runId, 'schema_version is not an integer')
  return parseV1(doc, runId)
}

function parseV1(doc: Record<string, unknown>, runId: string): LoadedCheckpoint {
  const bad = (field: string) => new CorruptCheckpointError(runId, `missing or mistyped ${field}`)
  const { run_id, graph, seq, last_step, status, yield_phase, state, saved_at } = doc
  if (typeof run_id !== 'string') throw bad('run_id')
  if (typeof graph !== 'string') throw bad('graph')
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0) throw bad('seq')
  if (typeof last_step !== 'string') throw bad('last_step')
  if (typeof status !== 'string' || !STATUSES.includes(status)) throw bad('status')
  if (!isPlainObject(state)) throw bad('state')
  if (typeof saved_at !== 'string') throw bad('saved_at')
  const loaded: LoadedCheckpoint = {
    seq,
    lastStep: last_step,
    status: status as CheckpointStatus,
    state: state as State,
    savedAt: saved_at,
  }
  if (status === 'yielded') {
    if (typeof yield_phase !== 'string' || !PHASES.includes(yield_phase)) throw bad('yield_phase')
    loaded.yieldPhase = yield_phase as YieldPhase
  }
  return loaded
}

function parseLegacy(
  doc: Record<string, unknown>,
  runId: string,
  purpose: ReadPurpose,
  keySeq: number,
): LoadedCheckpoint {
  const { last_step, state, yield_phase, saved_at } = doc
  if (typeof last_step !== 'string')
    throw new CorruptCheckpointError(runId, 'legacy checkpoint without last_step')
  if (!isPlainObject(state))
    throw new CorruptCheckpointError(runId, 'legacy checkpoint without state')
  const base = {
    seq: keySeq,
    lastStep: last_step,
    state: state as State,
    savedAt: typeof saved_at === 'string' ? saved_at : '',
  }
  if (yield_phase === 'after_step' || yield_phase === 'mid_step') {
    return { ...base, status: 'yielded', yieldPhase: yield_phase }
  }
  if (Object.hasOwn(state, '__failed_step')) return { ...base, status: 'failed' }
  return purpose === 'resume'
    ? { ...base, status: 'yielded', yieldPhase: 'mid_step' }
    : { ...base, status: 'step_done' }
}

/**
 * Writes a checkpoint: the latest key alone, or the latest key and its history entry together
 * in one atomic call (putMany when the store has it, else two puts in a transaction).
 * @throws CheckpointWriteError wrapping the store's error
 */
export async function writeCheckpoint(
  store: Store,
  ns: string,
  runId: string,
  seq: number,
  value: string,
  withHistory: boolean,
): Promise<void> {
  try {
    if (!withHistory) {
      await store.put(ns, runId, value)
    } else if (store.putMany) {
      await store.putMany(ns, [
        [runId, value],
        [historyKey(runId, seq), value],
      ])
    } else {
      await store.tx(async (t) => {
        await t.put(ns, runId, value)
        await t.put(ns, historyKey(runId, seq), value)
      })
    }
  } catch (err) {
    throw new CheckpointWriteError(`checkpoint ${seq} of run ${runId} was not written`, {
      cause: err,
    })
  }
}

/** Deletes all but the newest `keep` history entries of a run. Callers treat it as best-effort. */
export async function pruneHistory(
  store: Store,
  ns: string,
  runId: string,
  keep: number,
): Promise<void> {
  const keys = (await store.list(ns, `${runId}/`)).filter((k) => isHistoryKeyOf(runId, k))
  for (const key of keys.slice(0, Math.max(0, keys.length - keep))) await store.delete(ns, key)
}

/**
 * Reads a run's latest checkpoint, or history entry `seq`, with the read rules of docs/kernel.md,
 * for callers that show checkpoints (an API) rather than resume them.
 * @throws CheckpointNotFoundError, CorruptCheckpointError, UnsupportedCheckpointSchemaError
 */
export async function loadCheckpoint(
  store: Store,
  graph: string,
  runId: string,
  seq?: number,
): Promise<LoadedCheckpoint> {
  const raw = await store.get(
    checkpointNamespace(graph),
    seq === undefined ? runId : historyKey(runId, seq),
  )
  if (raw === undefined) throw new CheckpointNotFoundError(runId, seq)
  return parseCheckpoint(raw, runId, seq === undefined ? 'resume' : 'history', seq ?? 0)
}
