import { describe, expect, it } from 'vitest'
import {
  BudgetExhaustedError,
  CancelledError,
  CheckpointNotFoundError,
  CheckpointWriteError,
  CorruptCheckpointError,
  FrozenMergeConfigError,
  Graph,
  GraphValidationError,
  KernelError,
  MaxIterationsError,
  MemStore,
  MergeConfig,
  NestedTxError,
  ParallelConflictError,
  StepNotFoundError,
  UnsupportedCheckpointSchemaError,
  always,
  parallel,
  sum,
} from '@weave/kernel'
import type { Store } from '@weave/kernel'
import { RecordingStore, writeRaw } from './helpers.js'

type ErrorClass = abstract new (...args: never[]) => Error

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
  } catch (err) {
    return err
  }
  throw new Error('expected a throw')
}

const noop = () => ({})

/** Each error class, a way to make the kernel raise it, and its specific fields. */
const triggers: Array<[string, ErrorClass, () => Promise<unknown>, (e: never) => void]> = [
  [
    'GraphValidationError',
    GraphValidationError,
    () => caught(() => new Graph('g', 'nope').validate()),
    (e: GraphValidationError) => expect(e.problems).toEqual([expect.stringContaining('nope')]),
  ],
  [
    'StepNotFoundError',
    StepNotFoundError,
    async () => (await new Graph('g', 'a').addStep('a', noop, () => 'ghost').run({})).error,
    (e: StepNotFoundError) => expect(e.step).toBe('ghost'),
  ],
  [
    'MaxIterationsError',
    MaxIterationsError,
    async () =>
      (await new Graph('g', 'a', { maxIterations: 2 }).addStep('a', noop, always('a')).run({}))
        .error,
    (e: MaxIterationsError) => expect(e.limit).toBe(2),
  ],
  [
    'BudgetExhaustedError',
    BudgetExhaustedError,
    async () => (await new Graph('g', 'a', { stepBudget: 0 }).addStep('a', noop).run({})).error,
    () => undefined,
  ],
  [
    'CancelledError',
    CancelledError,
    async () => {
      const ac = new AbortController()
      ac.abort()
      return (await new Graph('g', 'a').addStep('a', noop).run({}, { signal: ac.signal })).error
    },
    () => undefined,
  ],
  [
    'CheckpointWriteError',
    CheckpointWriteError,
    async () => {
      const cause = new Error('down')
      const rec = new RecordingStore({ fail: (c) => (c.op === 'put' ? cause : undefined) })
      const g = new Graph('g', 'a', { checkpointPolicy: 'required' }).addStep('a', noop)
      const err = (await g.run({}, { store: rec.store })).error
      expect(err?.cause).toBe(cause)
      return err
    },
    () => undefined,
  ],
  [
    'CheckpointNotFoundError',
    CheckpointNotFoundError,
    () =>
      caught(() =>
        new Graph('g', 'a').addStep('a', noop).resume('r9', {}, { store: new MemStore() }),
      ),
    (e: CheckpointNotFoundError) => expect(e.runId).toBe('r9'),
  ],
  [
    'CorruptCheckpointError',
    CorruptCheckpointError,
    async () => {
      const store = new MemStore()
      await writeRaw(store, 'g', 'r9', '{not json')
      return caught(() => new Graph('g', 'a').addStep('a', noop).resume('r9', {}, { store }))
    },
    (e: CorruptCheckpointError) => expect(e.runId).toBe('r9'),
  ],
  [
    'UnsupportedCheckpointSchemaError',
    UnsupportedCheckpointSchemaError,
    async () => {
      const store = new MemStore()
      await writeRaw(store, 'g', 'r9', { schema_version: 5 })
      return caught(() => new Graph('g', 'a').addStep('a', noop).resume('r9', {}, { store }))
    },
    (e: UnsupportedCheckpointSchemaError) => {
      expect(e.found).toBe(5)
      expect(e.supported).toBe(1)
    },
  ],
  [
    'NestedTxError',
    NestedTxError,
    () => caught(() => new MemStore().tx((t: Store) => t.tx(async () => 1))),
    () => undefined,
  ],
  [
    'ParallelConflictError',
    ParallelConflictError,
    async () =>
      (
        await new Graph('g', 'a')
          .addStep('a', parallel({ x: () => ({ k: 1 }), y: () => ({ k: 2 }) }))
          .run({})
      ).error,
    (e: ParallelConflictError) => {
      expect(e.key).toBe('k')
      expect([...e.branches].sort()).toEqual(['x', 'y'])
    },
  ],
  [
    'FrozenMergeConfigError',
    FrozenMergeConfigError,
    async () => {
      const c = new MergeConfig()
      new Graph('g', 'a', { merge: c })
      return caught(() => c.register('n', sum))
    },
    () => undefined,
  ],
  [
    'KernelError',
    KernelError,
    async () => {
      const store = new MemStore()
      const g = new Graph('g', 'a', { checkpointHistory: -1 }).addStep('a', noop)
      await g.run({}, { store, runId: 'same' })
      return caught(() => g.resumeAt('same', 1, {}, { store, newRunId: 'same' }))
    },
    () => undefined,
  ],
]

describe('errors', () => {
  it.each(triggers)(
    '%s is raised by the kernel with its name, code and fields',
    async (name, cls, trigger, fields) => {
      const err = await trigger()
      expect(err).toBeInstanceOf(cls)
      expect(err).toBeInstanceOf(KernelError)
      expect(err).toBeInstanceOf(Error)
      const e = err as KernelError
      expect(e.name).toBe(name)
      expect(typeof e.code).toBe('string')
      expect(e.code.length).toBeGreaterThan(0)
      expect(e.message.length).toBeGreaterThan(0)
      fields(e as never)
    },
  )

  it('gives every error class its own code', async () => {
    const codes = new Map<string, string>()
    for (const [name, , trigger] of triggers) {
      const e = (await trigger()) as KernelError
      codes.set(name, e.code)
    }
    expect(new Set(codes.values()).size).toBe(triggers.length)
  })

  it('keeps the cause of a CancelledError', async () => {
    const ac = new AbortController()
    const cause = new Error('step saw the abort')
    const r = await new Graph('g', 'a')
      .addStep('a', () => {
        ac.abort()
        throw cause
      })
      .run({}, { signal: ac.signal })
    expect(r.error).toBeInstanceOf(CancelledError)
    expect(r.error!.cause).toBe(cause)
  })
})
