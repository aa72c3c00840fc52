import { describe, expect, it } from 'vitest'
import { END, Graph, always, branch, branchFunc, condition, end } from '@weave/kernel'
import type { Router, State, StepContext } from '@weave/kernel'
import { fakeContext } from './helpers.js'

const route = async (r: Router, s: State) => r(s, fakeContext())

describe('built-in routers', () => {
  it('END is the empty string', () => {
    expect(END).toBe('')
  })

  it('always routes to its step whatever the state', async () => {
    expect(await route(always('next'), {})).toBe('next')
    expect(await route(always('next'), { x: 1 })).toBe('next')
  })

  it('end routes to END', async () => {
    expect(await route(end(), { x: 1 })).toBe(END)
  })

  it('condition routes on its predicate', async () => {
    const r = condition((s) => s.ok === true, 'yes', 'no')
    expect(await route(r, { ok: true })).toBe('yes')
    expect(await route(r, { ok: false })).toBe('no')
    expect(await route(r, {})).toBe('no')
  })
})

describe('branch', () => {
  const r = branch('k', { a: 'to-a', '2': 'to-two', true: 'to-true', '1.5': 'to-1.5' }, 'fb')

  it('matches a string value as is', async () => {
    expect(await route(r, { k: 'a' })).toBe('to-a')
  })

  it('matches numbers and booleans through String(v)', async () => {
    expect(await route(r, { k: 2 })).toBe('to-two')
    expect(await route(r, { k: 1.5 })).toBe('to-1.5')
    expect(await route(r, { k: true })).toBe('to-true')
  })

  it('falls back when the value is missing, null, an object or an array', async () => {
    expect(await route(r, {})).toBe('fb')
    expect(await route(r, { k: null })).toBe('fb')
    expect(await route(r, { k: { a: 1 } })).toBe('fb')
    expect(await route(r, { k: ['a'] })).toBe('fb')
  })

  it('falls back when no route matches', async () => {
    expect(await route(r, { k: 'zzz' })).toBe('fb')
    expect(await route(r, { k: false })).toBe('fb')
  })

  it('matches own keys of routes only', async () => {
    expect(await route(r, { k: 'toString' })).toBe('fb')
    expect(await route(r, { k: 'constructor' })).toBe('fb')
    expect(await route(r, { k: 'hasOwnProperty' })).toBe('fb')
    const inherited = Object.create({ b: 'to-b' }) as Record<string, string>
    inherited.own = 'to-own'
    const r2 = branch('k', inherited, 'fb')
    expect(await route(r2, { k: 'b' })).toBe('fb')
    expect(await route(r2, { k: 'own' })).toBe('to-own')
  })
})

describe('branchFunc', () => {
  const r = branchFunc((s) => `${String(s.x)}-${String(s.y)}`, { '1-2': 'hit' }, 'fb')

  it('matches what extract returns', async () => {
    expect(await route(r, { x: 1, y: 2 })).toBe('hit')
  })

  it('falls back when nothing matches', async () => {
    expect(await route(r, { x: 2, y: 1 })).toBe('fb')
  })

  it('matches own keys of routes only', async () => {
    const r2 = branchFunc(() => 'toString', { a: 'x' }, 'fb')
    expect(await route(r2, {})).toBe('fb')
    const r3 = branchFunc(() => '__proto__', { a: 'x' }, 'fb')
    expect(await route(r3, {})).toBe('fb')
  })
})

describe('routers in a graph', () => {
  it('receive the state after the step and the step context', async () => {
    const seen: Array<{ state: State; ctx: StepContext }> = []
    const spy: Router = (state, ctx) => {
      seen.push({ state, ctx })
      return ctx.step === 'a' ? 'b' : END
    }
    const g = new Graph('routed', 'a')
      .addStep('a', () => ({ x: 1 }), spy)
      .addStep('b', () => ({ y: 2 }), spy)
    const r = await g.run({}, { runId: 'r1' })
    expect(r.stopReason).toBe('completed')
    expect(seen.map((s) => [s.ctx.step, s.ctx.seq, s.ctx.runId, s.ctx.graph])).toEqual([
      ['a', 1, 'r1', 'routed'],
      ['b', 2, 'r1', 'routed'],
    ])
    expect(seen[0]!.state).toEqual({ x: 1 })
    expect(seen[1]!.state).toEqual({ x: 1, y: 2 })
  })

  it('may be async', async () => {
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        () => ({}),
        async () => 'b',
      )
      .addStep('b', () => ({ done: true }))
    expect((await g.run({})).state).toEqual({ done: true })
  })

  it('branch routes a run by a state value', async () => {
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        () => ({ kind: 'big' }),
        branch('kind', { big: 'big', small: 'small' }, 'other'),
      )
      .addStep('big', () => ({ went: 'big' }))
      .addStep('small', () => ({ went: 'small' }))
      .addStep('other', () => ({ went: 'other' }))
    expect((await g.run({})).state.went).toBe('big')
  })
})
