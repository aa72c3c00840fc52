import { describe, expect, it } from 'vitest'
import {
  CHECKPOINT_SCHEMA_VERSION,
  CheckpointWriteError,
  Graph,
  MemStore,
  always,
  end,
} from '@weave/kernel'
import type { GraphOptions } from '@weave/kernel'
import { RecordingStore, historyKey, readCheckpoint } from './helpers.js'
import type { StoreCall } from './helpers.js'

function chain(options: GraphOptions = {}, steps = 3) {
  const g = new Graph('chain', 's1', options)
  for (let i = 1; i <= steps; i++) {
    g.addStep(`s${i}`, () => ({ [`v${i}`]: i }), i < steps ? always(`s${i + 1}`) : end())
  }
  return g
}

const storeFailure = (match: (c: StoreCall) => boolean) => {
  const err = new Error('disk full')
  return { err, fail: (c: StoreCall) => (match(c) ? err : undefined) }
}

describe('the checkpoint envelope', () => {
  it('reads the KERNEL.md example status', async () => {
    const store = new MemStore()
    const g = new Graph('greeter', 'greet').addStep(
      'greet',
      (s) => ({ out: `Hello, ${String(s.name)}!` }),
      end(),
    )
    const r = await g.run({ name: 'World' }, { store })
    expect(JSON.parse((await store.get('checkpoint:greeter', r.runId))!).status).toBe('step_done')
  })

  it('exports schema version 1', () => {
    expect(CHECKPOINT_SCHEMA_VERSION).toBe(1)
  })

  it('holds exactly the v1 fields for a step_done checkpoint', async () => {
    const store = new MemStore()
    const r = await chain().run({ in: 'x' }, { store, runId: 'r1' })
    const cp = await readCheckpoint(store, 'chain', 'r1')
    expect(Object.keys(cp).sort()).toEqual(
      [
        'graph',
        'last_step',
        'run_id',
        'saved_at',
        'schema_version',
        'seq',
        'state',
        'status',
      ].sort(),
    )
    expect(cp).toMatchObject({
      schema_version: 1,
      run_id: 'r1',
      graph: 'chain',
      seq: 3,
      last_step: 's3',
      status: 'step_done',
    })
    expect(cp.state).toEqual(r.state)
    expect(typeof cp.saved_at).toBe('string')
    expect(new Date(cp.saved_at as string).toISOString()).toBe(cp.saved_at)
  })

  it('adds yield_phase only to a yielded checkpoint and never writes meta', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a').addStep('a', () => ({
      __yield: true,
      __yield_phase: 'after_step',
    }))
    await g.run({}, { store, runId: 'r1' })
    const cp = await readCheckpoint(store, 'g', 'r1')
    expect(cp.status).toBe('yielded')
    expect(cp.yield_phase).toBe('after_step')
    expect('meta' in cp).toBe(false)
  })

  it('writes a checkpoint after every step with ascending seq', async () => {
    const rec = new RecordingStore()
    await chain().run({}, { store: rec.store, runId: 'r1' })
    const puts = rec.writes()
    expect(puts.map((c) => [c.op, c.ns, c.key, c.inTx])).toEqual([
      ['put', 'checkpoint:chain', 'r1', false],
      ['put', 'checkpoint:chain', 'r1', false],
      ['put', 'checkpoint:chain', 'r1', false],
    ])
    const envs = puts.map((c) => JSON.parse(c.value!) as { seq: number; last_step: string })
    expect(envs.map((e) => [e.seq, e.last_step])).toEqual([
      [1, 's1'],
      [2, 's2'],
      [3, 's3'],
    ])
  })
})

describe('namespace and keys', () => {
  it('uses checkpoint:<graph> and only the run id without history', async () => {
    const store = new MemStore()
    await chain().run({}, { store, runId: 'r1' })
    expect(await store.list('checkpoint:chain', '')).toEqual(['r1'])
  })

  it('adds zero-padded history keys with checkpointHistory -1', async () => {
    const store = new MemStore()
    await chain({ checkpointHistory: -1 }, 11).run({}, { store, runId: 'r1' })
    const keys = await store.list('checkpoint:chain', '')
    expect(keys).toEqual(['r1', ...Array.from({ length: 11 }, (_, i) => historyKey('r1', i + 1))])
    expect(keys[10]).toBe('r1/000000000010')
    const h = await readCheckpoint(store, 'chain', 'r1/000000000002')
    expect(h).toMatchObject({ seq: 2, last_step: 's2', status: 'step_done', run_id: 'r1' })
  })
})

describe('writing with history', () => {
  it('uses one putMany of [latest, history] when the store has putMany', async () => {
    const rec = new RecordingStore()
    await chain({ checkpointHistory: -1 }).run({}, { store: rec.store, runId: 'r1' })
    const writes = rec.writes()
    expect(writes.map((c) => c.op)).toEqual(['putMany', 'putMany', 'putMany'])
    writes.forEach((c, i) => {
      expect(c.ns).toBe('checkpoint:chain')
      expect(c.inTx).toBe(false)
      expect(c.entries!.map(([k]) => k)).toEqual(['r1', historyKey('r1', i + 1)])
      expect(c.entries![0]![1]).toBe(c.entries![1]![1])
    })
  })

  it('uses two puts inside one tx when the store lacks putMany', async () => {
    const rec = new RecordingStore({ putMany: false })
    expect('putMany' in rec.store).toBe(false)
    await chain({ checkpointHistory: -1 }).run({}, { store: rec.store, runId: 'r1' })
    const writes = rec.writes()
    expect(writes.map((c) => [c.op, c.key, c.inTx])).toEqual(
      [1, 2, 3].flatMap((seq) => [
        ['tx', undefined, false],
        ['put', 'r1', true],
        ['put', historyKey('r1', seq), true],
      ]),
    )
    const [, latest, hist] = writes
    expect(latest!.value).toBe(hist!.value)
    expect(await rec.inner.list('checkpoint:chain', '')).toEqual([
      'r1',
      historyKey('r1', 1),
      historyKey('r1', 2),
      historyKey('r1', 3),
    ])
  })

  it('writes nothing of a checkpoint whose tx fails half way', async () => {
    const { fail } = storeFailure((c) => c.op === 'put' && c.inTx && c.key === historyKey('r1', 2))
    const rec = new RecordingStore({ putMany: false, fail })
    const r = await chain({ checkpointHistory: -1 }).run({}, { store: rec.store, runId: 'r1' })
    expect(r.stopReason).toBe('completed')
    expect(await rec.inner.list('checkpoint:chain', '')).toEqual([
      'r1',
      historyKey('r1', 1),
      historyKey('r1', 3),
    ])
  })
})

describe('pruning', () => {
  it('keeps the newest n history entries', async () => {
    const store = new MemStore()
    await chain({ checkpointHistory: 2 }, 5).run({}, { store, runId: 'r1' })
    expect(await store.list('checkpoint:chain', '')).toEqual([
      'r1',
      historyKey('r1', 4),
      historyKey('r1', 5),
    ])
  })

  it('keeps every entry with -1', async () => {
    const store = new MemStore()
    await chain({ checkpointHistory: -1 }, 5).run({}, { store, runId: 'r1' })
    expect(await store.list('checkpoint:chain', 'r1/')).toHaveLength(5)
  })

  it('prunes only the run history, not other keys under the run id', async () => {
    const store = new MemStore()
    const ns = 'checkpoint:chain'
    await store.put(ns, 'r1/child', '{}')
    await store.put(ns, 'r1/child/000000000001', '{}')
    await store.put(ns, 'r10', '{}')
    await store.put(ns, historyKey('r10', 1), '{}')
    await chain({ checkpointHistory: 1 }, 3).run({}, { store, runId: 'r1' })
    expect(await store.list(ns, '')).toEqual([
      'r1',
      historyKey('r1', 3),
      'r1/child',
      'r1/child/000000000001',
      'r10',
      historyKey('r10', 1),
    ])
  })

  it('is best-effort even under the required policy', async () => {
    const { fail } = storeFailure((c) => c.op === 'delete' || c.op === 'list')
    const rec = new RecordingStore({ fail })
    const r = await chain({ checkpointHistory: 1, checkpointPolicy: 'required' }, 4).run(
      {},
      { store: rec.store },
    )
    expect(r.stopReason).toBe('completed')
    expect(r.steps).toBe(4)
  })
})

describe('checkpoint policies', () => {
  it('best-effort (the default) ignores a failed write', async () => {
    const { fail } = storeFailure((c) => c.op === 'put')
    for (const options of [{}, { checkpointPolicy: 'best-effort' as const }]) {
      const rec = new RecordingStore({ fail })
      const r = await chain(options).run({}, { store: rec.store })
      expect(r.stopReason).toBe('completed')
      expect(r.steps).toBe(3)
    }
  })

  it('required stops with CheckpointWriteError carrying the store error', async () => {
    const { err, fail } = storeFailure((c) => c.op === 'put' && JSON.parse(c.value!).seq === 2)
    const rec = new RecordingStore({ fail })
    const ran: string[] = []
    const g = new Graph('g', 'a', { checkpointPolicy: 'required' })
      .addStep('a', () => (ran.push('a'), {}), always('b'))
      .addStep('b', () => (ran.push('b'), {}), always('c'))
      .addStep('c', () => (ran.push('c'), {}))
    const r = await g.run({}, { store: rec.store, runId: 'r1' })
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(CheckpointWriteError)
    expect(r.error!.cause).toBe(err)
    expect(r.lastStep).toBe('b')
    expect(ran).toEqual(['a', 'b'])
    expect((await readCheckpoint(rec.inner, 'g', 'r1')).seq).toBe(1)
  })

  it('required applies to a failed putMany as a whole', async () => {
    const { err, fail } = storeFailure((c) => c.op === 'putMany')
    const rec = new RecordingStore({ fail })
    const r = await chain({ checkpointHistory: -1, checkpointPolicy: 'required' }).run(
      {},
      { store: rec.store },
    )
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(CheckpointWriteError)
    expect(r.error!.cause).toBe(err)
    expect(r.steps).toBe(1)
  })

  it('required applies to a failed tx as a whole', async () => {
    const { err, fail } = storeFailure((c) => c.op === 'put' && c.inTx && c.key !== 'r1')
    const rec = new RecordingStore({ putMany: false, fail })
    const r = await chain({ checkpointHistory: -1, checkpointPolicy: 'required' }).run(
      {},
      { store: rec.store, runId: 'r1' },
    )
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(CheckpointWriteError)
    expect(r.error!.cause).toBe(err)
    expect(await rec.inner.get('checkpoint:chain', 'r1')).toBeUndefined()
  })

  it('required covers a yielded checkpoint', async () => {
    const { fail } = storeFailure((c) => c.op === 'put')
    const rec = new RecordingStore({ fail })
    const g = new Graph('g', 'a', { checkpointPolicy: 'required' }).addStep('a', () => ({
      __yield: true,
    }))
    const r = await g.run({}, { store: rec.store })
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(CheckpointWriteError)
  })

  it('writes a failed checkpoint best-effort even under required', async () => {
    const { fail } = storeFailure((c) => c.op === 'put')
    const rec = new RecordingStore({ fail })
    const boom = new Error('step broke')
    const g = new Graph('g', 'a', { checkpointPolicy: 'required' }).addStep('a', () => {
      throw boom
    })
    const r = await g.run({}, { store: rec.store })
    expect(r.stopReason).toBe('error')
    expect(r.error).toBe(boom)
    expect(rec.writes().map((c) => c.op)).toEqual(['put'])
  })
})
