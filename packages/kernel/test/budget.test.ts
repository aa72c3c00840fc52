import { describe, expect, it } from 'vitest'
import { BudgetExhaustedError, Graph, MemStore, always } from '@weave/kernel'
import type { GraphOptions, Json, State } from '@weave/kernel'
import { readCheckpoint } from './helpers.js'

/** An endless loop of step "x" that records the budget each call sees. */
function loop(options: GraphOptions = {}, seen: Array<Json | undefined> = []) {
  return new Graph('loop', 'x', options).addStep(
    'x',
    (s) => (seen.push(s.__budget_remaining), {}),
    always('x'),
  )
}

describe('step budget', () => {
  it('runs the KERNEL.md example', async () => {
    const r = await new Graph('loop', 'x', { stepBudget: 3 })
      .addStep('x', () => ({}), always('x'))
      .run({})
    expect(r.stopReason).toBe('budget')
    expect(r.steps).toBe(3)
    expect(r.state.__budget_remaining).toBe(0)
    expect(r.error).toBeInstanceOf(BudgetExhaustedError)
    expect(r.lastStep).toBe('x')
  })

  it('gives every step the remaining count after its own unit', async () => {
    const seen: Array<Json | undefined> = []
    await loop({ stepBudget: 3 }, seen).run({})
    expect(seen).toEqual([2, 1, 0])
  })

  it('puts the remainder in every checkpoint', async () => {
    const store = new MemStore()
    const g = new Graph('g', 'a', { stepBudget: 5, checkpointHistory: -1 })
      .addStep('a', () => ({}), always('b'))
      .addStep('b', () => ({}))
    await g.run({}, { store, runId: 'r1' })
    expect((await readCheckpoint(store, 'g', 'r1/000000000001')).state).toEqual({
      __budget_remaining: 4,
    })
    expect((await readCheckpoint(store, 'g', 'r1')).state).toEqual({ __budget_remaining: 3 })
  })

  it('has no __budget_remaining anywhere without a budget', async () => {
    const seen: Array<Json | undefined> = []
    const r = await loop({ maxIterations: 2 }, seen).run({})
    expect(seen).toEqual([undefined, undefined])
    expect('__budget_remaining' in r.state).toBe(false)
  })

  it('takes the starting state __budget_remaining over stepBudget', async () => {
    const r = await loop({ stepBudget: 5 }).run({ __budget_remaining: 2 })
    expect(r).toMatchObject({ stopReason: 'budget', steps: 2 })
  })

  it('takes a starting __budget_remaining without stepBudget', async () => {
    const r = await loop().run({ __budget_remaining: 2 })
    expect(r).toMatchObject({ stopReason: 'budget', steps: 2 })
  })

  it('floors a fractional budget and clamps a negative one to 0', async () => {
    expect((await loop().run({ __budget_remaining: 2.9 })).steps).toBe(2)
    const neg = await loop().run({ __budget_remaining: -4 })
    expect(neg).toMatchObject({ stopReason: 'budget', steps: 0, lastStep: 'x' })
    expect(neg.state.__budget_remaining).toBe(0)
  })

  it('ignores a non-number starting __budget_remaining in favour of stepBudget', async () => {
    for (const v of ['3', null, true, [1]]) {
      const r = await loop({ stepBudget: 1 }).run({ __budget_remaining: v })
      expect(r).toMatchObject({ stopReason: 'budget', steps: 1 })
      expect(r.state.__budget_remaining).toBe(0)
    }
  })

  it('stops before the first step with a budget of 0', async () => {
    let calls = 0
    const r = await new Graph('g', 'a', { stepBudget: 0 }).addStep('a', () => (calls++, {})).run({})
    expect(r).toMatchObject({ stopReason: 'budget', steps: 0, lastStep: 'a' })
    expect(calls).toBe(0)
  })

  it('ignores __budget_remaining in a delta', async () => {
    const r = await new Graph('g', 'x', { stepBudget: 3 })
      .addStep('x', () => ({ __budget_remaining: 100 }), always('x'))
      .run({})
    expect(r).toMatchObject({ stopReason: 'budget', steps: 3 })
    expect(r.state.__budget_remaining).toBe(0)
  })

  it('completes a run that needs no more than its budget', async () => {
    const r = await new Graph('g', 'a', { stepBudget: 2 })
      .addStep('a', () => ({}), always('b'))
      .addStep('b', () => ({}))
      .run({})
    expect(r).toMatchObject({ stopReason: 'completed', steps: 2 })
    expect(r.state.__budget_remaining).toBe(0)
  })

  it('stops with budget when a step throws BudgetExhaustedError', async () => {
    const store = new MemStore()
    const err = new BudgetExhaustedError()
    const r = await new Graph('g', 'a')
      .addStep('a', () => {
        throw err
      })
      .run({}, { store, runId: 'r1' })
    expect(r.stopReason).toBe('budget')
    expect(r.error).toBe(err)
    expect(r.state.__failed_step).toBe('a')
    expect((await readCheckpoint(store, 'g', 'r1')).status).toBe('failed')
  })
})

describe('budget across resumes', () => {
  function yielder(options: GraphOptions) {
    return new Graph('y', 'x', options).addStep(
      'x',
      (s: State) =>
        ((s.n as number | undefined) ?? 0) % 2 === 1
          ? { __yield: true, n: ((s.n as number) ?? 0) + 1 }
          : { n: ((s.n as number | undefined) ?? 0) + 1 },
      always('x'),
    )
  }

  it('inherits the stored remainder', async () => {
    const store = new MemStore()
    const g = yielder({ stepBudget: 5 })
    const r1 = await g.run({}, { store })
    expect(r1).toMatchObject({ stopReason: 'yielded', steps: 2 })
    expect(r1.state.__budget_remaining).toBe(3)
    let total = r1.steps
    let r = r1
    while (r.stopReason === 'yielded') {
      r = await g.resume(r1.runId, {}, { store })
      total += r.steps
    }
    expect(r.stopReason).toBe('budget')
    expect(total).toBe(5)
    expect(r.state.__budget_remaining).toBe(0)
  })

  it('lets the resume input override the remainder', async () => {
    const store = new MemStore()
    const g = yielder({ stepBudget: 2 })
    const r1 = await g.run({}, { store })
    expect(r1.state.__budget_remaining).toBe(0)
    const r2 = await g.resume(r1.runId, { __budget_remaining: 1 }, { store })
    expect(r2.steps).toBe(1)
    expect(r2.state.__budget_remaining).toBe(0)
  })

  it('stops a resume of a spent run at once', async () => {
    const store = new MemStore()
    const g = loop({ stepBudget: 2 })
    const r1 = await g.run({}, { store })
    const r2 = await g.resume(r1.runId, {}, { store })
    expect(r2).toMatchObject({ stopReason: 'budget', steps: 0 })
  })

  it('applies to resumeAt from the entry remainder', async () => {
    const store = new MemStore()
    const g = new Graph('loop', 'x', { stepBudget: 4, checkpointHistory: -1 }).addStep(
      'x',
      () => ({}),
      always('x'),
    )
    const r1 = await g.run({}, { store })
    expect(r1.steps).toBe(4)
    const fork = await g.resumeAt(r1.runId, 1, {}, { store, newRunId: 'fork' })
    expect(fork).toMatchObject({ stopReason: 'budget', steps: 3 })
  })
})
