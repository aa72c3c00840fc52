import { describe, expect, it } from 'vitest'
import {
  END,
  Graph,
  GraphValidationError,
  MemStore,
  always,
  branch,
  branchFunc,
  condition,
  end,
} from '@weave/kernel'
import type { GraphOptions, Step } from '@weave/kernel'

const f: Step = () => ({})

function problemsOf(g: Graph): string[] {
  try {
    g.validate()
  } catch (err) {
    expect(err).toBeInstanceOf(GraphValidationError)
    return (err as GraphValidationError).problems
  }
  throw new Error('validate() did not throw')
}

function addStepError(fn: () => unknown): GraphValidationError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(GraphValidationError)
    return err as GraphValidationError
  }
  throw new Error('addStep did not throw')
}

describe('Graph', () => {
  it('exposes its name and entry', () => {
    const g = new Graph('named', 'start')
    expect(g.name).toBe('named')
    expect(g.entry).toBe('start')
  })
})

describe('addStep', () => {
  it('returns the graph for chaining', () => {
    const g = new Graph('g', 'a')
    expect(g.addStep('a', f)).toBe(g)
  })

  it('rejects an empty name with one problem', () => {
    const err = addStepError(() => new Graph('g', 'a').addStep('', f))
    expect(err.problems).toHaveLength(1)
  })

  it('rejects a name containing "/" with one problem naming it', () => {
    const err = addStepError(() => new Graph('g', 'a').addStep('par/ent', f))
    expect(err.problems).toHaveLength(1)
    expect(err.problems[0]).toContain('par/ent')
  })

  it('rejects a duplicate name with one problem naming it', () => {
    const g = new Graph('g', 'alpha').addStep('alpha', f)
    const err = addStepError(() => g.addStep('alpha', f))
    expect(err.problems).toHaveLength(1)
    expect(err.problems[0]).toContain('alpha')
  })
})

describe('validate', () => {
  it('accepts a well-formed graph', () => {
    const g = new Graph('g', 'a')
      .addStep('a', f, always('b'))
      .addStep('b', f, branch('k', { x: 'c', y: END }, 'a'))
      .addStep(
        'c',
        f,
        condition(() => true, 'a', END),
      )
      .addStep(
        'd',
        f,
        branchFunc(() => 'x', { x: 'a' }, 'b'),
      )
      .addStep('e', f, end())
      .addStep('t', f)
    expect(() => g.validate()).not.toThrow()
  })

  it('reports the KERNEL.md example: an unregistered entry and target', () => {
    const problems = problemsOf(new Graph('x', 'nope').addStep('a', f, always('ghost')))
    expect(problems).toHaveLength(2)
    expect(problems[0]).toContain('nope')
    expect(problems[1]).toContain('ghost')
  })

  it('lists every problem in order, each naming its option or step', () => {
    const g = new Graph('', 'missing', { maxIterations: 0, stepBudget: -1, checkpointHistory: -2 })
      .addStep('alpha', f, always('ghost1'))
      .addStep('beta', f, branch('k', { x: 'ghost2', y: 'ghost2', z: 'alpha' }, 'ghost3'))
    const problems = problemsOf(g)
    expect(problems).toHaveLength(8)
    expect(problems[0]).toMatch(/name/i)
    expect(problems[1]).toContain('maxIterations')
    expect(problems[2]).toContain('stepBudget')
    expect(problems[3]).toContain('checkpointHistory')
    expect(problems[4]).toContain('missing')
    expect(problems[5]).toContain('ghost1')
    expect(problems[5]).toContain('alpha')
    expect(problems[6]).toContain('ghost2')
    expect(problems[6]).toContain('beta')
    expect(problems[7]).toContain('ghost3')
    expect(problems[7]).toContain('beta')
  })

  it('reports the same missing target once per step that routes to it', () => {
    const g = new Graph('g', 'alpha')
      .addStep(
        'alpha',
        f,
        condition(() => true, 'ghost', 'ghost'),
      )
      .addStep('beta', f, always('ghost'))
    const problems = problemsOf(g)
    expect(problems).toHaveLength(2)
    expect(problems[0]).toContain('alpha')
    expect(problems[1]).toContain('beta')
  })

  it('checks the targets of every built-in router', () => {
    const g = new Graph('g', 'a')
      .addStep(
        'a',
        f,
        condition(() => true, 'g-cond-t', 'g-cond-f'),
      )
      .addStep(
        'b',
        f,
        branchFunc(() => 'x', { x: 'g-bf' }, 'g-bf-fallback'),
      )
    const problems = problemsOf(g).join('\n')
    for (const t of ['g-cond-t', 'g-cond-f', 'g-bf', 'g-bf-fallback']) expect(problems).toContain(t)
  })

  it('does not treat END as a missing target', () => {
    const g = new Graph('g', 'a')
      .addStep('a', f, always(END))
      .addStep('b', f, branch('k', { x: END }, END))
      .addStep(
        'c',
        f,
        condition(() => true, END, END),
      )
    expect(() => g.validate()).not.toThrow()
  })

  it('does not inspect custom routers', () => {
    const g = new Graph('g', 'a').addStep('a', f, () => 'ghost')
    expect(() => g.validate()).not.toThrow()
  })

  it('accepts steps registered after the entry is named', () => {
    const g = new Graph('g', 'b').addStep('a', f).addStep('b', f, always('a'))
    expect(() => g.validate()).not.toThrow()
  })

  const options: Array<[keyof GraphOptions, unknown, boolean]> = [
    ['maxIterations', 1, true],
    ['maxIterations', 100, true],
    ['maxIterations', 0, false],
    ['maxIterations', -1, false],
    ['maxIterations', 2.5, false],
    ['maxIterations', Number.NaN, false],
    ['maxIterations', Number.POSITIVE_INFINITY, false],
    ['maxIterations', '5', false],
    ['stepBudget', 0, true],
    ['stepBudget', 7, true],
    ['stepBudget', -1, false],
    ['stepBudget', 1.5, false],
    ['stepBudget', '3', false],
    ['checkpointHistory', -1, true],
    ['checkpointHistory', 0, true],
    ['checkpointHistory', 5, true],
    ['checkpointHistory', -2, false],
    ['checkpointHistory', 0.5, false],
    ['checkpointHistory', null, false],
  ]
  it.each(options)('%s = %s is valid: %s', (key, value, valid) => {
    const g = new Graph('g', 'a', { [key]: value }).addStep('a', f)
    if (valid) {
      expect(() => g.validate()).not.toThrow()
    } else {
      const problems = problemsOf(g)
      expect(problems).toHaveLength(1)
      expect(problems[0]).toContain(key)
    }
  })
})

describe('runs validate first', () => {
  const bad = () => new Graph('g', 'nope').addStep('a', f)

  it('run rejects with GraphValidationError', async () => {
    await expect(bad().run({})).rejects.toBeInstanceOf(GraphValidationError)
  })

  it('stream rejects with GraphValidationError from the first next()', async () => {
    const it = bad().stream({})[Symbol.asyncIterator]()
    await expect(it.next()).rejects.toBeInstanceOf(GraphValidationError)
  })

  it('resume and resumeAt reject with GraphValidationError before reading any checkpoint', async () => {
    const store = new MemStore()
    await expect(bad().resume('r', {}, { store })).rejects.toBeInstanceOf(GraphValidationError)
    await expect(bad().resumeAt('r', 1, {}, { store })).rejects.toBeInstanceOf(GraphValidationError)
  })

  it('run reports bad options as a GraphValidationError', async () => {
    const g = new Graph('g', 'a', { maxIterations: 0 }).addStep('a', f)
    await expect(g.run({})).rejects.toBeInstanceOf(GraphValidationError)
  })
})
