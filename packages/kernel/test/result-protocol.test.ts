import { describe, expect, it } from 'vitest'
import { Graph, MemStore, always, end, subgraph } from '@weave/kernel'
import { readCheckpoint } from './helpers.js'

// What a host needs from a stop without reading the store: the checkpoint seq the run stands at,
// and why it yielded.

function asking(reason: unknown) {
  return new Graph('ask', 'prepare')
    .addStep('prepare', () => ({ n: 1 }), always('ask'))
    .addStep(
      'ask',
      (s, ctx) =>
        ctx.resumeInput?.answer === undefined
          ? { __yield: true, __yield_reason: reason as never, asked: true }
          : { answer: ctx.resumeInput.answer },
      end(),
    )
}

describe('RunResult.seq', () => {
  it('is the seq of the latest checkpoint written, across a yield and a resume', async () => {
    const store = new MemStore()
    const g = asking({ kind: 'question' })
    const first = await g.run({}, { store, runId: 'r' })
    expect(first.seq).toBe(2)
    const done = await g.resume('r', { answer: 42 }, { store })
    expect(done.seq).toBe(3)
    expect((await readCheckpoint(store, 'ask', 'r')).seq).toBe(3)
  })

  it('stays at the checkpoint resumed from when a stop writes nothing', async () => {
    const store = new MemStore()
    const g = asking(null)
    await g.run({}, { store, runId: 'r' })
    const aborted = new AbortController()
    aborted.abort()
    const stopped = await g.resume('r', {}, { store, signal: aborted.signal })
    expect(stopped.stopReason).toBe('cancelled')
    expect(stopped.seq).toBe(2)
  })

  it('is 0 for a run without a store', async () => {
    const r = await new Graph('g', 'a').addStep('a', () => ({ x: 1 }), end()).run({})
    expect(r.seq).toBe(0)
  })

  it('counts a failed checkpoint, which resume re-runs', async () => {
    const store = new MemStore()
    const g = new Graph('f', 'a').addStep(
      'a',
      () => {
        throw new Error('boom')
      },
      end(),
    )
    const r = await g.run({}, { store, runId: 'r' })
    expect(r.stopReason).toBe('error')
    expect(r.seq).toBe(1)
  })
})

describe('RunResult.yield', () => {
  it('carries the phase and the reason the step gave, and the reason is never stored', async () => {
    const store = new MemStore()
    const r = await asking({ kind: 'question', text: 'why?' }).run({}, { store, runId: 'r' })
    expect(r.yield).toEqual({ phase: 'mid_step', reason: { kind: 'question', text: 'why?' } })
    expect(Object.isFrozen(r.yield?.reason)).toBe(true)
    expect(r.state.__yield_reason).toBeUndefined()
    const cp = await readCheckpoint(store, 'ask', 'r')
    expect(JSON.stringify(cp)).not.toContain('why?')
  })

  it('has a null reason when the step gave none, and is absent when the run did not yield', async () => {
    const yielded = await asking(undefined).run({}, { store: new MemStore() })
    expect(yielded.yield).toEqual({ phase: 'mid_step', reason: null })
    const done = await new Graph('g', 'a').addStep('a', () => ({}), end()).run({})
    expect(done.yield).toBeUndefined()
  })

  it("brings a nested child's reason up to the root's result", async () => {
    const store = new MemStore()
    const child = asking({ kind: 'from-child' })
    const parent = new Graph('parent', 'sub').addStep('sub', subgraph(child), end())
    const r = await parent.run({}, { store, runId: 'p' })
    expect(r.stopReason).toBe('yielded')
    expect(r.yield).toEqual({ phase: 'mid_step', reason: { kind: 'from-child' } })
  })
})

describe('resume with atSeq', () => {
  it('applies the input while the latest checkpoint is still atSeq', async () => {
    const store = new MemStore()
    const g = asking(null)
    const first = await g.run({}, { store, runId: 'r' })
    const done = await g.resume('r', { answer: 7 }, { store, atSeq: first.seq })
    expect(done.state.answer).toBe(7)
  })

  it('continues without the input once the checkpoint moved on, so input is never merged twice', async () => {
    const store = new MemStore()
    const g = new Graph('count', 'wait')
      .addStep(
        'wait',
        (s, ctx) => (ctx.resumeInput?.add === undefined ? { __yield: true } : {}),
        always('after'),
      )
      .addStep('after', () => ({ done: true }), end())
    const first = await g.run({ total: 0 }, { store, runId: 'r' })
    await g.resume('r', { add: 1 }, { store, atSeq: first.seq })
    const again = await g.resume('r', { add: 1 }, { store, atSeq: first.seq })
    expect(again.stopReason).toBe('completed')
    expect(again.steps).toBe(0)
    expect(again.state.add).toBe(1)
  })

  it('refuses an atSeq that is not an integer ≥ 0', async () => {
    const store = new MemStore()
    const g = asking(null)
    await g.run({}, { store, runId: 'r' })
    await expect(g.resume('r', {}, { store, atSeq: -1 })).rejects.toThrow(TypeError)
  })
})
