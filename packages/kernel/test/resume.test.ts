import { describe, expect, it } from 'vitest'
import { Graph, MemStore, StepNotFoundError, always, end } from '@weave/kernel'
import type { State, StepContext } from '@weave/kernel'
import { envelope, readCheckpoint, writeRaw } from './helpers.js'

type Log = Array<[string, number]>

function abc(log: Log, opts: { failB?: () => boolean; vetoB?: () => boolean } = {}) {
  const rec = (name: string, delta: State) => (_s: State, ctx: StepContext) => {
    log.push([name, ctx.seq])
    if (name === 'b' && opts.failB?.()) throw new Error('b failed')
    return delta
  }
  return new Graph('abc', 'a', {
    hooks: {
      before: [
        (step) => {
          if (step === 'b' && opts.vetoB?.()) throw new Error('veto')
        },
      ],
    },
  })
    .addStep('a', rec('a', { a: 1 }), always('b'))
    .addStep('b', rec('b', { b: 1 }), always('c'))
    .addStep('c', rec('c', { c: 1 }), end())
}

describe('crash recovery from a step_done checkpoint', () => {
  it('evaluates the router of last_step and never re-runs the finished step', async () => {
    const store = new MemStore()
    await writeRaw(
      store,
      'abc',
      'r1',
      envelope({ run_id: 'r1', graph: 'abc', last_step: 'a', seq: 1, state: { a: 1 } }),
    )
    const log: Log = []
    const r = await abc(log).resume('r1', {}, { store })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 2, lastStep: 'c' })
    expect(r.state).toEqual({ a: 1, b: 1, c: 1 })
    expect(log).toEqual([
      ['b', 2],
      ['c', 3],
    ])
  })

  it('recovers a run that stopped between steps', async () => {
    const store = new MemStore()
    const log: Log = []
    let veto = true
    const g = abc(log, { vetoB: () => veto })
    const first = await g.run({}, { store, runId: 'r1' })
    expect(first.stopReason).toBe('hook_abort')
    expect((await readCheckpoint(store, 'abc', 'r1')).status).toBe('step_done')
    veto = false
    const r = await g.resume('r1', {}, { store })
    expect(r.stopReason).toBe('completed')
    expect(log.map(([s]) => s)).toEqual(['a', 'b', 'c'])
    expect(log.at(-1)).toEqual(['c', 3])
  })

  it('completes with steps 0 when the finished step was the last', async () => {
    const store = new MemStore()
    const log: Log = []
    const g = abc(log)
    await g.run({}, { store, runId: 'r1' })
    const r = await g.resume('r1', { more: 1 }, { store })
    expect(r).toMatchObject({ stopReason: 'completed', steps: 0 })
    expect(r.state).toEqual({ a: 1, b: 1, c: 1, more: 1 })
    expect(log).toHaveLength(3)
  })

  it('re-evaluates a router that named an unregistered step once it is fixed', async () => {
    const store = new MemStore()
    let target = 'ghost'
    const log: string[] = []
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        () => (log.push('a'), { a: 1 }),
        () => target,
      )
      .addStep('b', () => (log.push('b'), { b: 1 }))
    const r1 = await g.run({}, { store, runId: 'r1' })
    expect(r1.error).toBeInstanceOf(StepNotFoundError)
    target = 'b'
    const r2 = await g.resume('r1', {}, { store })
    expect(r2).toMatchObject({ stopReason: 'completed', steps: 1, state: { a: 1, b: 1 } })
    expect(log).toEqual(['a', 'b'])
  })
})

describe('resume of a failed step', () => {
  it('clears __error and __failed_step and re-runs the failed step with resumeInput', async () => {
    const store = new MemStore()
    const log: Log = []
    let fail = true
    const seen: Array<[State, unknown]> = []
    const g = abc(log, { failB: () => fail })
    const r1 = await g.run({}, { store, runId: 'r1' })
    expect(r1.stopReason).toBe('error')
    expect(r1.state).toMatchObject({ __error: 'b failed', __failed_step: 'b' })
    expect((await readCheckpoint(store, 'abc', 'r1')).status).toBe('failed')

    fail = false
    const g2 = new Graph('abc', 'a')
      .addStep('a', () => ({ a: 'again' }), always('b'))
      .addStep('b', (s, ctx) => (seen.push([s, ctx.resumeInput]), { b: 1 }), end())
    const r2 = await g2.resume('r1', { retry: true }, { store })
    expect(r2.stopReason).toBe('completed')
    expect(r2.steps).toBe(1)
    expect(r2.state).toEqual({ a: 1, b: 1, retry: true })
    expect(seen).toEqual([[{ a: 1, retry: true }, { retry: true }]])
  })

  it('a failed step that fails again writes a new failed checkpoint', async () => {
    const store = new MemStore()
    const log: Log = []
    const g = abc(log, { failB: () => true })
    await g.run({}, { store, runId: 'r1' })
    const r = await g.resume('r1', {}, { store })
    expect(r.stopReason).toBe('error')
    expect(r.state.__failed_step).toBe('b')
    expect(await readCheckpoint(store, 'abc', 'r1')).toMatchObject({ status: 'failed', seq: 3 })
    expect(log).toEqual([
      ['a', 1],
      ['b', 2],
      ['b', 3],
    ])
  })
})

describe('a step to re-run that is not registered', () => {
  it.each([
    ['yielded mid_step', { status: 'yielded', yield_phase: 'mid_step' }],
    ['failed', { status: 'failed', state: { __error: 'x', __failed_step: 'gone' } }],
  ])('stops a %s resume with error StepNotFoundError', async (_name, over) => {
    const store = new MemStore()
    await writeRaw(
      store,
      'abc',
      'r1',
      envelope({ run_id: 'r1', graph: 'abc', last_step: 'gone', ...over }),
    )
    const r = await abc([]).resume('r1', {}, { store })
    expect(r.stopReason).toBe('error')
    expect(r.error).toBeInstanceOf(StepNotFoundError)
    expect((r.error as StepNotFoundError).step).toBe('gone')
  })
})
