import { describe, expect, it } from 'vitest'
import { Graph, GraphValidationError, MemStore, always, end } from '@weave/kernel'
import type { State, StepEvent } from '@weave/kernel'
import { RecordingStore, collect, flush, readCheckpoint, resultOf } from './helpers.js'

function abc(ran: string[] = []) {
  return new Graph('abc', 'a')
    .addStep('a', () => (ran.push('a'), { a: 1 }), always('b'))
    .addStep('b', () => (ran.push('b'), { b: 1 }), always('c'))
    .addStep('c', () => (ran.push('c'), { c: 1 }), end())
}

describe('stream', () => {
  it('emits one step event per step, then the result event last', async () => {
    const events = await collect(abc().stream({ x: 0 }, { runId: 'r1' }))
    expect(events).toHaveLength(4)
    expect(events.slice(0, 3)).toEqual([
      { type: 'step', step: 'a', seq: 1, status: 'step_done', state: { x: 0, a: 1 } },
      { type: 'step', step: 'b', seq: 2, status: 'step_done', state: { x: 0, a: 1, b: 1 } },
      { type: 'step', step: 'c', seq: 3, status: 'step_done', state: { x: 0, a: 1, b: 1, c: 1 } },
    ])
    expect(resultOf(events)).toMatchObject({
      runId: 'r1',
      stopReason: 'completed',
      steps: 3,
      lastStep: 'c',
      state: { x: 0, a: 1, b: 1, c: 1 },
    })
  })

  it('ends with the result run would return', async () => {
    const g = new Graph('g', 'a', { stepBudget: 2 }).addStep('a', () => ({ a: 1 }), always('a'))
    const viaRun = await g.run({}, { runId: 'r1' })
    const viaStream = resultOf(await collect(g.stream({}, { runId: 'r1' })))
    expect(viaStream).toEqual(viaRun)
  })

  it('runs the KERNEL.md loop with a store', async () => {
    const store = new MemStore()
    const seen: Array<[number, string]> = []
    for await (const e of abc().stream({}, { store }))
      if (e.type === 'step') seen.push([e.seq, e.step])
    expect(seen).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ])
  })

  it('marks a yielding step yielded and ends with a yielded result', async () => {
    const g = new Graph('g', 'a').addStep('a', () => ({ __yield: true, q: 1 }), always('a'))
    const events = await collect(g.stream({}))
    expect(events.map((e) => (e.type === 'step' ? e.status : e.result.stopReason))).toEqual([
      'yielded',
      'yielded',
    ])
    expect(events[0]).toMatchObject({ type: 'step', state: { q: 1 } })
  })

  it('emits no step event for a failed or vetoed step', async () => {
    const failing = new Graph('g', 'a')
      .addStep('a', () => ({}), always('b'))
      .addStep('b', () => {
        throw new Error('x')
      })
    const e1 = await collect(failing.stream({}))
    expect(e1.map((e) => e.type)).toEqual(['step', 'result'])
    expect(resultOf(e1).stopReason).toBe('error')

    const vetoed = new Graph('g', 'a', {
      hooks: {
        after: [
          () => {
            throw new Error('veto')
          },
        ],
      },
    }).addStep('a', () => ({}))
    const e2 = await collect(vetoed.stream({}))
    expect(e2.map((e) => e.type)).toEqual(['result'])
    expect(resultOf(e2).stopReason).toBe('hook_abort')
  })

  it('checkpoints a step before emitting its event', async () => {
    const store = new MemStore()
    for await (const e of abc().stream({}, { store, runId: 'r1' })) {
      if (e.type === 'step') expect((await readCheckpoint(store, 'abc', 'r1')).seq).toBe(e.seq)
    }
  })

  it('is done after the result event', async () => {
    const it = abc().stream({})[Symbol.asyncIterator]()
    let e: IteratorResult<StepEvent>
    do e = await it.next()
    while (!e.done && e.value.type !== 'result')
    expect((await it.next()).done).toBe(true)
  })
})

describe('stream laziness', () => {
  it('starts a step only when the consumer asks for the next event', async () => {
    const ran: string[] = []
    const it = abc(ran).stream({})[Symbol.asyncIterator]()
    await flush()
    expect(ran).toEqual([])
    await it.next()
    await flush()
    expect(ran).toEqual(['a'])
    await it.next()
    await flush()
    expect(ran).toEqual(['a', 'b'])
  })

  it('leaving the loop stops the run: nothing more runs or is written, and it resumes', async () => {
    const rec = new RecordingStore()
    const ran: string[] = []
    const g = abc(ran)
    for await (const e of g.stream({}, { store: rec.store, runId: 'r1' })) {
      if (e.type === 'step' && e.step === 'a') break
    }
    const writes = rec.writes().length
    await flush()
    expect(ran).toEqual(['a'])
    expect(rec.writes()).toHaveLength(writes)
    expect(await readCheckpoint(rec.inner, 'abc', 'r1')).toMatchObject({ seq: 1, last_step: 'a' })

    const r = await g.resume('r1', {}, { store: rec.store })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 2, state: { a: 1, b: 1, c: 1 } })
    expect(ran).toEqual(['a', 'b', 'c'])
  })

  it('return() on the iterator stops the run too', async () => {
    const ran: string[] = []
    const it = abc(ran).stream({})[Symbol.asyncIterator]()
    await it.next()
    await it.next()
    await it.return?.()
    await flush()
    expect(ran).toEqual(['a', 'b'])
    expect((await it.next()).done).toBe(true)
  })
})

describe('stream misuse', () => {
  it('does not throw when called; the first next() rejects', async () => {
    const g = abc()
    const bad = g.stream(null as unknown as State)
    await expect(bad[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(TypeError)
    const badId = g.stream({}, { runId: '' })
    await expect(badId[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(TypeError)
    const invalid = new Graph('g', 'nope').stream({})
    await expect(invalid[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(
      GraphValidationError,
    )
  })
})
