import { describe, expect, it } from 'vitest'
import {
  Graph,
  KernelError,
  MemStore,
  UnsupportedCheckpointSchemaError,
  always,
  end,
} from '@weave/kernel'
import type { Store } from '@weave/kernel'
import { RecordingStore, envelope, historyKey, writeRaw } from './helpers.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type Log = Array<[string, number, string]>

function g2(log: Log = []) {
  const step = (name: string) => (_s: unknown, ctx: { seq: number; runId: string }) => {
    log.push([name, ctx.seq, ctx.runId])
    return { [name]: ctx.seq }
  }
  return new Graph('g2', 's1', { checkpointHistory: -1 })
    .addStep('s1', step('s1'), always('s2'))
    .addStep('s2', step('s2'), always('s3'))
    .addStep('s3', step('s3'), end())
}

async function snapshot(store: Store, ns: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const k of await store.list(ns, '')) out[k] = (await store.get(ns, k))!
  return out
}

describe('history', () => {
  it('lists the KERNEL.md example seqs', async () => {
    const store = new MemStore()
    const { runId } = await g2().run({}, { store })
    expect((await g2().history(runId, { store })).map((c) => c.seq)).toEqual([1, 2, 3])
  })

  it('describes each entry as CheckpointInfo', async () => {
    const store = new MemStore()
    const g = new Graph('h', 'a', { checkpointHistory: -1 })
      .addStep('a', () => ({}), always('b'))
      .addStep('b', (s) => (s.ok ? {} : { __yield: true, __yield_phase: 'after_step' }), end())
    await g.run({}, { store, runId: 'r1' })
    const h = await g.history('r1', { store })
    expect(h).toHaveLength(2)
    expect(h[0]).toMatchObject({ seq: 1, lastStep: 'a', status: 'step_done' })
    expect(h[0]!.yieldPhase).toBeUndefined()
    expect(h[1]).toMatchObject({
      seq: 2,
      lastStep: 'b',
      status: 'yielded',
      yieldPhase: 'after_step',
    })
    for (const c of h) expect(new Date(c.savedAt).toISOString()).toBe(c.savedAt)
  })

  it('includes failed checkpoints', async () => {
    const store = new MemStore()
    const g = new Graph('h', 'a', { checkpointHistory: -1 }).addStep('a', () => {
      throw new Error('x')
    })
    await g.run({}, { store, runId: 'r1' })
    expect(await g.history('r1', { store })).toMatchObject([{ seq: 1, status: 'failed' }])
  })

  it('sorts by seq past nine entries', async () => {
    const store = new MemStore()
    const g = new Graph('loop', 'x', { checkpointHistory: -1, maxIterations: 12 }).addStep(
      'x',
      () => ({}),
      always('x'),
    )
    await g.run({}, { store, runId: 'r1' })
    expect((await g.history('r1', { store })).map((c) => c.seq)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    )
  })

  it('reads only keys exactly <runId>/ + 12 digits', async () => {
    const store = new MemStore()
    const ok = (seq: number) => envelope({ run_id: 'r', graph: 'g2', last_step: 's1', seq })
    await writeRaw(store, 'g2', historyKey('r', 1), ok(1))
    await writeRaw(store, 'g2', historyKey('r', 2), ok(2))
    await writeRaw(store, 'g2', 'r/s2', ok(50))
    await writeRaw(store, 'g2', 'r/s2/000000000001', ok(51))
    await writeRaw(store, 'g2', 'r/00000000003', ok(52))
    await writeRaw(store, 'g2', 'r/0000000000004', ok(53))
    await writeRaw(store, 'g2', 'r/000000000005x', ok(54))
    await writeRaw(store, 'g2', 'r/00000000000a', ok(55))
    await writeRaw(store, 'g2', historyKey('rr', 6), ok(56))
    await writeRaw(store, 'g2', 'r', ok(57))
    expect((await g2().history('r', { store })).map((c) => c.seq)).toEqual([1, 2])
  })

  it('skips corrupt entries', async () => {
    const store = new MemStore()
    const { runId } = await g2().run({}, { store })
    await writeRaw(store, 'g2', historyKey(runId, 2), 'garbage')
    await writeRaw(store, 'g2', historyKey(runId, 4), { schema_version: 1, seq: 'x' })
    expect((await g2().history(runId, { store })).map((c) => c.seq)).toEqual([1, 3])
  })

  it('rejects an entry with a too-new schema', async () => {
    const store = new MemStore()
    const { runId } = await g2().run({}, { store })
    await writeRaw(store, 'g2', historyKey(runId, 4), { schema_version: 2 })
    await expect(g2().history(runId, { store })).rejects.toBeInstanceOf(
      UnsupportedCheckpointSchemaError,
    )
  })

  it('returns [] for an unknown run', async () => {
    expect(await g2().history('nobody', { store: new MemStore() })).toEqual([])
  })
})

describe('resumeAt', () => {
  it('forks the KERNEL.md example: steps 2 and 3 run again under the new id', async () => {
    const store = new MemStore()
    const log: Log = []
    const { runId } = await g2(log).run({}, { store })
    log.length = 0
    const r = await g2(log).resumeAt(runId, 1, { retry: true }, { store, newRunId: 'fork' })
    expect(r).toMatchObject({ runId: 'fork', stopReason: 'completed', steps: 2 })
    expect(r.state).toEqual({ s1: 1, retry: true, s2: 2, s3: 3 })
    expect(log).toEqual([
      ['s2', 2, 'fork'],
      ['s3', 3, 'fork'],
    ])
  })

  it('writes only keys of the new run id and leaves the original untouched', async () => {
    const rec = new RecordingStore()
    const { runId } = await g2().run({}, { store: rec.store, runId: 'orig' })
    const before = await snapshot(rec.inner, 'checkpoint:g2')
    rec.calls.length = 0
    await g2().resumeAt(runId, 2, {}, { store: rec.store, newRunId: 'fork' })
    const keys = rec
      .writes()
      .flatMap((c) => (c.op === 'putMany' ? c.entries!.map(([k]) => k) : c.key ? [c.key] : []))
    expect(keys.length).toBeGreaterThan(0)
    for (const k of keys) expect(k === 'fork' || k.startsWith('fork/')).toBe(true)
    const after = await snapshot(rec.inner, 'checkpoint:g2')
    for (const [k, v] of Object.entries(before)) expect(after[k]).toBe(v)
    expect(Object.keys(after).filter((k) => !(k in before))).toEqual([
      'fork',
      historyKey('fork', 3),
    ])
  })

  it('continues seqs at seq + 1 in the fork history', async () => {
    const store = new MemStore()
    const { runId } = await g2().run({}, { store })
    await g2().resumeAt(runId, 1, {}, { store, newRunId: 'fork' })
    expect((await g2().history('fork', { store })).map((c) => c.seq)).toEqual([2, 3])
    expect((await g2().history(runId, { store })).map((c) => c.seq)).toEqual([1, 2, 3])
  })

  it('generates a UUID when newRunId is absent', async () => {
    const store = new MemStore()
    const { runId } = await g2().run({}, { store })
    const r = await g2().resumeAt(runId, 1, {}, { store })
    expect(r.runId).toMatch(UUID)
    expect(r.runId).not.toBe(runId)
  })

  it('rejects newRunId equal to runId with KernelError and writes nothing', async () => {
    const rec = new RecordingStore()
    const { runId } = await g2().run({}, { store: rec.store, runId: 'same' })
    rec.calls.length = 0
    const err = await g2()
      .resumeAt(runId, 1, {}, { store: rec.store, newRunId: 'same' })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KernelError)
    expect(rec.writes()).toEqual([])
  })

  it('re-runs a mid_step yielded entry with resumeInput', async () => {
    const store = new MemStore()
    const seen: unknown[] = []
    const g = new Graph('y', 'a', { checkpointHistory: -1 }).addStep(
      'a',
      (s, ctx) => (seen.push(ctx.resumeInput), s.ok ? { done: s.ok } : { __yield: true }),
      end(),
    )
    const { runId } = await g.run({}, { store })
    const r = await g.resumeAt(runId, 1, { ok: 'forked' }, { store, newRunId: 'fork' })
    expect(r).toMatchObject({ stopReason: 'completed', state: { ok: 'forked', done: 'forked' } })
    expect(seen).toEqual([undefined, { ok: 'forked' }])
  })

  it('re-runs a failed entry without __error and __failed_step', async () => {
    const store = new MemStore()
    let fail = true
    const g = new Graph('f', 'a', { checkpointHistory: -1 })
      .addStep('a', () => ({ a: 1 }), always('b'))
      .addStep('b', () => {
        if (fail) throw new Error('no')
        return { b: 1 }
      })
    const { runId } = await g.run({}, { store })
    fail = false
    const r = await g.resumeAt(runId, 2, {}, { store, newRunId: 'fork' })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 1 })
    expect(r.state).toEqual({ a: 1, b: 1 })
  })
})
