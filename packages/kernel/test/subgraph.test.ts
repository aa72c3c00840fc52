import { describe, expect, it } from 'vitest'
import {
  BudgetExhaustedError,
  Graph,
  MaxIterationsError,
  MemStore,
  always,
  defaultMergeConfig,
  subgraph,
} from '@weave/kernel'
import type { State, StepContext } from '@weave/kernel'
import { deferred, readCheckpoint } from './helpers.js'

function reviewGraph(seen: StepContext[] = [], states: State[] = []) {
  return new Graph('review', 'check')
    .addStep(
      'check',
      (s, ctx) => (seen.push(ctx), states.push(s), { checked: true }),
      always('decide'),
    )
    .addStep(
      'decide',
      (s, ctx) => (seen.push(ctx), states.push(s), { verdict: 'ok', note: 'child' }),
    )
}

describe('subgraph', () => {
  it('runs the child under <runId>/<step> with the parent store (the KERNEL.md example)', async () => {
    const store = new MemStore()
    const seen: StepContext[] = []
    const parent = new Graph('parent', 'draft')
      .addStep('draft', () => ({ draft: 'text' }), always('review'))
      .addStep(
        'review',
        subgraph(reviewGraph(seen), { output: (c) => ({ verdict: c.verdict }) }),
        always('publish'),
      )
      .addStep('publish', (s) => ({ published: s.verdict === 'ok' }))
    const r = await parent.run({}, { store, runId: 'r1' })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 3 })
    expect(r.state).toEqual({ draft: 'text', verdict: 'ok', published: true })
    expect(seen.map((c) => [c.runId, c.graph, c.step, c.seq])).toEqual([
      ['r1/review', 'review', 'check', 1],
      ['r1/review', 'review', 'decide', 2],
    ])
    for (const c of seen) expect(c.store).toBe(store)
    expect(await readCheckpoint(store, 'review', 'r1/review')).toMatchObject({
      run_id: 'r1/review',
      status: 'step_done',
      last_step: 'decide',
    })
  })

  it('gives the child the parent state without __ keys by default', async () => {
    const states: State[] = []
    const parent = new Graph('parent', 'a', { stepBudget: 10 })
      .addStep('a', () => ({ x: 1 }), always('sub'))
      .addStep('sub', subgraph(reviewGraph([], states)))
    const r = await parent.run({ in: 'v' })
    expect(r.stopReason).toBe('completed')
    const { __budget_remaining, ...rest } = states[0]!
    expect(rest).toEqual({ in: 'v', x: 1 })
    expect(typeof __budget_remaining).toBe('number')
  })

  it('passes input(state) to the child when given', async () => {
    const states: State[] = []
    const parent = new Graph('parent', 'sub').addStep(
      'sub',
      subgraph(reviewGraph([], states), { input: (s) => ({ only: s.pick as string }) }),
    )
    await parent.run({ pick: 'me', other: 1 })
    expect(states[0]).toEqual({ only: 'me' })
  })

  it('returns the child state without __ keys as the delta by default', async () => {
    const parent = new Graph('parent', 'sub', { stepBudget: 10 }).addStep(
      'sub',
      subgraph(reviewGraph()),
    )
    const r = await parent.run({ in: 1 })
    expect(r.state).toEqual({
      in: 1,
      checked: true,
      verdict: 'ok',
      note: 'child',
      __budget_remaining: 7,
    })
  })

  it('merges the default output with the parent config, so an append key doubles', async () => {
    const child = new Graph('child', 'c', { merge: defaultMergeConfig() }).addStep('c', () => ({
      messages: ['child'],
    }))
    const parent = new Graph('parent', 'sub', { merge: defaultMergeConfig() }).addStep(
      'sub',
      subgraph(child),
    )
    const r = await parent.run({ messages: ['p'] })
    expect(r.state.messages).toEqual(['p', 'p', 'child'])
  })

  it('passes the child state and the parent state to output', async () => {
    const calls: Array<[State, State]> = []
    const parent = new Graph('parent', 'sub').addStep(
      'sub',
      subgraph(reviewGraph(), { output: (c, s) => (calls.push([c, s]), { v: c.verdict }) }),
    )
    const r = await parent.run({ p: 1 })
    expect(calls).toEqual([[{ p: 1, checked: true, verdict: 'ok', note: 'child' }, { p: 1 }]])
    expect(r.state).toEqual({ p: 1, v: 'ok' })
  })

  it('throws the child error for other stops', async () => {
    const boom = new Error('child broke')
    const child = new Graph('child', 'c').addStep('c', () => {
      throw boom
    })
    const r = await new Graph('parent', 'sub').addStep('sub', subgraph(child)).run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBe(boom)
    expect(r.state.__failed_step).toBe('sub')
  })

  it('throws MaxIterationsError when the child hits its limit', async () => {
    const child = new Graph('child', 'c', { maxIterations: 2 }).addStep(
      'c',
      () => ({}),
      always('c'),
    )
    const r = await new Graph('parent', 'sub').addStep('sub', subgraph(child)).run({})
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(MaxIterationsError)
  })

  it('uses the parent signal', async () => {
    const ac = new AbortController()
    const started = deferred<StepContext>()
    const child = new Graph('child', 'c').addStep('c', async (_s, ctx) => {
      started.resolve(ctx)
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
      throw new Error('child aborted')
    })
    const p = new Graph('parent', 'sub')
      .addStep('sub', subgraph(child))
      .run({}, { signal: ac.signal })
    const ctx = await started.promise
    ac.abort()
    const r = await p
    expect(ctx.signal.aborted).toBe(true)
    expect(r.stopReason).toBe('cancelled')
  })
})

describe('subgraph budget', () => {
  it('charges child steps to the parent budget', async () => {
    const seen: Array<[string, unknown]> = []
    const child = new Graph('child', 'c1')
      .addStep('c1', (s) => (seen.push(['c1', s.__budget_remaining]), {}), always('c2'))
      .addStep('c2', (s) => (seen.push(['c2', s.__budget_remaining]), {}))
    const parent = new Graph('parent', 'sub', { stepBudget: 10 })
      .addStep('sub', subgraph(child), always('next'))
      .addStep('next', (s) => (seen.push(['next', s.__budget_remaining]), {}))
    const r = await parent.run({})
    expect(seen).toEqual([
      ['c1', 8],
      ['c2', 7],
      ['next', 6],
    ])
    expect(r).toMatchObject({ stopReason: 'completed', steps: 2 })
    expect(r.state.__budget_remaining).toBe(6)
  })

  it('ignores the child stepBudget', async () => {
    const child = new Graph('child', 'c1', { stepBudget: 1 })
      .addStep('c1', () => ({}), always('c2'))
      .addStep('c2', () => ({}), always('c3'))
      .addStep('c3', () => ({ done: true }))
    const free = await new Graph('parent', 'sub').addStep('sub', subgraph(child)).run({})
    expect(free).toMatchObject({ stopReason: 'completed', state: { done: true } })
    expect('__budget_remaining' in free.state).toBe(false)
    const budgeted = await new Graph('parent', 'sub', { stepBudget: 10 })
      .addStep('sub', subgraph(child))
      .run({})
    expect(budgeted).toMatchObject({
      stopReason: 'completed',
      state: { done: true, __budget_remaining: 6 },
    })
  })

  it('stops the parent with budget when the child spends it', async () => {
    let childSteps = 0
    const child = new Graph('child', 'c').addStep('c', () => (childSteps++, {}), always('c'))
    const r = await new Graph('parent', 'sub', { stepBudget: 4 })
      .addStep('sub', subgraph(child))
      .run({})
    expect(r.stopReason).toBe('budget')
    expect(r.error).toBeInstanceOf(BudgetExhaustedError)
    expect(childSteps).toBe(3)
    expect(r.state.__budget_remaining).toBe(0)
  })
})

describe('subgraph yield and resume', () => {
  function leaf(calls: string[]) {
    return new Graph('leaf', 'ask').addStep('ask', (s) => {
      calls.push('ask')
      return s.answer === undefined ? { __yield: true, asked: true } : { leafDone: s.answer }
    })
  }

  it('yields the parent with __child_run_id and resumes the child on parent resume', async () => {
    const store = new MemStore()
    const calls: string[] = []
    const parent = new Graph('root', 'outer')
      .addStep('outer', subgraph(leaf(calls)), always('after'))
      .addStep('after', () => (calls.push('after'), { finished: true }))
    const r = await parent.run({}, { store, runId: 'r' })
    expect(r).toMatchObject({ stopReason: 'yielded', lastStep: 'outer' })
    expect(r.state.__child_run_id).toBe('r/outer')
    expect(r.state.__yield).toBeUndefined()
    expect(await readCheckpoint(store, 'root', 'r')).toMatchObject({
      status: 'yielded',
      yield_phase: 'mid_step',
    })
    expect(await readCheckpoint(store, 'leaf', 'r/outer')).toMatchObject({ status: 'yielded' })

    const done = await parent.resume('r', { answer: 'yes' }, { store })
    expect(done.stopReason).toBe('completed')
    expect(done.state).toMatchObject({ leafDone: 'yes', finished: true })
    expect(calls).toEqual(['ask', 'ask', 'after'])
  })

  it('resumes a yielded child at depth 2', async () => {
    const store = new MemStore()
    const calls: string[] = []
    const mid = new Graph('mid', 'pre')
      .addStep('pre', () => (calls.push('pre'), { pre: true }), always('inner'))
      .addStep('inner', subgraph(leaf(calls)), always('post'))
      .addStep('post', () => (calls.push('post'), { post: true }))
    const root = new Graph('root', 'outer')
      .addStep('outer', subgraph(mid), always('after'))
      .addStep('after', () => (calls.push('after'), { finished: true }))
    const r = await root.run({}, { store, runId: 'r' })
    expect(r.stopReason).toBe('yielded')
    expect(r.state.__child_run_id).toBe('r/outer')
    expect((await readCheckpoint(store, 'mid', 'r/outer')).state).toMatchObject({
      __child_run_id: 'r/outer/inner',
    })
    expect(await readCheckpoint(store, 'leaf', 'r/outer/inner')).toMatchObject({
      status: 'yielded',
    })

    const done = await root.resume('r', { answer: 42 }, { store })
    expect(done.stopReason).toBe('completed')
    expect(done.state).toMatchObject({ pre: true, leafDone: 42, post: true, finished: true })
    expect(calls).toEqual(['pre', 'ask', 'ask', 'post', 'after'])
  })

  it('resumes a yielded child at depth 3', async () => {
    const store = new MemStore()
    const calls: string[] = []
    const l3 = leaf(calls)
    const l2 = new Graph('l2', 's').addStep('s', subgraph(l3))
    const l1 = new Graph('l1', 's').addStep('s', subgraph(l2))
    const root = new Graph('root', 's').addStep('s', subgraph(l1))
    const r = await root.run({}, { store, runId: 'r' })
    expect(r.stopReason).toBe('yielded')
    expect(await readCheckpoint(store, 'leaf', 'r/s/s/s')).toMatchObject({ status: 'yielded' })
    const done = await root.resume('r', { answer: 'deep' }, { store })
    expect(done).toMatchObject({ stopReason: 'completed', state: { leafDone: 'deep' } })
    expect(calls).toEqual(['ask', 'ask'])
  })

  it('resumes a failed child without re-running its finished steps', async () => {
    const store = new MemStore()
    const calls: string[] = []
    let fail = true
    const child = new Graph('child', 'c1')
      .addStep('c1', () => (calls.push('c1'), { c1: true }), always('c2'))
      .addStep('c2', () => {
        calls.push('c2')
        if (fail) throw new Error('c2 failed')
        return { c2: true }
      })
    const parent = new Graph('parent', 'sub').addStep('sub', subgraph(child))
    const r = await parent.run({}, { store, runId: 'r' })
    expect(r.stopReason).toBe('error')
    fail = false
    const done = await parent.resume('r', {}, { store })
    expect(done).toMatchObject({ stopReason: 'completed', state: { c1: true, c2: true } })
    expect(calls).toEqual(['c1', 'c2', 'c2'])
  })

  it('runs the child afresh when resumed without a child checkpoint', async () => {
    const store = new MemStore()
    let failInput = true
    const states: State[] = []
    const parent = new Graph('parent', 'sub').addStep(
      'sub',
      subgraph(reviewGraph([], states), {
        input: (s) => {
          if (failInput) throw new Error('input failed')
          return { from: s.x as number }
        },
      }),
    )
    const r = await parent.run({ x: 1 }, { store, runId: 'r' })
    expect(r.stopReason).toBe('error')
    expect(await store.get('checkpoint:review', 'r/sub')).toBeUndefined()
    failInput = false
    const done = await parent.resume('r', { x: 2 }, { store })
    expect(done.stopReason).toBe('completed')
    expect(states[0]).toEqual({ from: 2 })
  })

  it('runs the child afresh on a plain run even if an old child checkpoint exists', async () => {
    const store = new MemStore()
    const calls: string[] = []
    const parent = new Graph('parent', 'sub').addStep('sub', subgraph(leaf(calls)))
    await parent.run({}, { store, runId: 'r' })
    const again = await parent.run({ answer: 'fresh' }, { store, runId: 'r' })
    expect(again).toMatchObject({ stopReason: 'completed', state: { leafDone: 'fresh' } })
  })
})
