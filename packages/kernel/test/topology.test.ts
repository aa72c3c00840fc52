import { describe, expect, it } from 'vitest'
import { END, Graph, always, branch, branchFunc, condition, end } from '@weave/kernel'
import type { Step } from '@weave/kernel'

const f: Step = () => ({})

describe('topology', () => {
  it('describes the KERNEL.md greeter', () => {
    const g = new Graph('greeter', 'greet').addStep(
      'greet',
      (s) => ({ out: `Hello, ${String(s.name)}!` }),
      end(),
    )
    expect(g.topology()).toStrictEqual([{ name: 'greet', edges: [{ to: '' }], dynamic: false }])
  })

  it('lists an always edge without a label', () => {
    const g = new Graph('g', 'a').addStep('a', f, always('b')).addStep('b', f)
    expect(g.topology()[0]).toStrictEqual({ name: 'a', edges: [{ to: 'b' }], dynamic: false })
  })

  it('lists a step without router as terminal with no edges', () => {
    const g = new Graph('g', 'a').addStep('a', f)
    expect(g.topology()).toStrictEqual([{ name: 'a', edges: [], dynamic: false }])
  })

  it('lists branch routes in order with their keys, then the fallback as "default"', () => {
    const g = new Graph('g', 'a')
      .addStep('a', f, branch('k', { hi: 'b', lo: 'c', none: END }, 'd'))
      .addStep('b', f)
      .addStep('c', f)
      .addStep('d', f)
    expect(g.topology()[0]).toStrictEqual({
      name: 'a',
      edges: [
        { to: 'b', label: 'hi' },
        { to: 'c', label: 'lo' },
        { to: '', label: 'none' },
        { to: 'd', label: 'default' },
      ],
      dynamic: false,
    })
  })

  it('lists branchFunc routes like branch', () => {
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        f,
        branchFunc(() => 'x', { x: 'b' }, 'a'),
      )
      .addStep('b', f)
    expect(g.topology()[0]).toStrictEqual({
      name: 'a',
      edges: [
        { to: 'b', label: 'x' },
        { to: 'a', label: 'default' },
      ],
      dynamic: false,
    })
  })

  it('lists condition edges as "true" then "false"', () => {
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        f,
        condition(() => true, 'b', END),
      )
      .addStep('b', f)
    expect(g.topology()[0]).toStrictEqual({
      name: 'a',
      edges: [
        { to: 'b', label: 'true' },
        { to: '', label: 'false' },
      ],
      dynamic: false,
    })
  })

  it('marks a custom router dynamic with no edges', () => {
    const g = new Graph('g', 'a').addStep('a', f, () => 'a')
    expect(g.topology()).toStrictEqual([{ name: 'a', edges: [], dynamic: true }])
  })

  it('follows insertion order of steps', () => {
    const g = new Graph('g', 'b')
      .addStep('c', f)
      .addStep('a', f, always('c'))
      .addStep('b', f, always('a'))
    expect(g.topology().map((s) => s.name)).toEqual(['c', 'a', 'b'])
  })
})
