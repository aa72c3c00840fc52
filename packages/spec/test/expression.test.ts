import { describe, expect, it } from 'vitest'
import type { State } from '@weave/kernel'
import {
  compileExpression,
  ExpressionError,
  ExpressionSyntaxError,
  expressionSyntaxError,
} from '@weave/spec'

// Frozen like the kernel's state.
const state: Readonly<State> = Object.freeze({
  amount: 150,
  items: Object.freeze([1, 2, 3]) as number[],
  __budget_remaining: 7,
  __error: 'hidden',
})

async function failure(source: string, input: Readonly<State> = state, limits = {}) {
  try {
    await compileExpression(source, limits).evaluate(input, 'calc')
  } catch (err) {
    return err as ExpressionError
  }
  throw new Error('expected a failure')
}

describe('expressions', () => {
  it('evaluates against the state and converts sequences to arrays', async () => {
    const e = compileExpression('items.($ * 2)')
    const value = await e.evaluate(state, 's')
    expect(value).toEqual([2, 4, 6])
    expect(Object.keys(value as object)).toEqual(['0', '1', '2'])
  })

  it('works on the kernel’s frozen state, array constructors included', async () => {
    expect(await compileExpression('items[]').evaluate(state, 's')).toEqual([1, 2, 3])
  })

  it('hides the __ protocol keys', async () => {
    expect(await compileExpression('__budget_remaining').evaluate(state, 's')).toBeUndefined()
    expect(await compileExpression('$keys($)').evaluate(state, 's')).toEqual(['amount', 'items'])
  })

  it('returns undefined when nothing matches', async () => {
    expect(await compileExpression('missing.path').evaluate(state, 's')).toBeUndefined()
  })

  it('stops an infinite recursion at the time limit', async () => {
    const err = await failure('($f := function($x){ $f($x) }; $f(1))', state, { timeoutMs: 100 })
    expect(err).toBeInstanceOf(ExpressionError)
    expect(err.reason).toBe('timeout')
    expect(err.message).toMatch(/^step "calc": expression "\(\$f := .*" failed: Evaluation timeout/)
  })

  it('stops a runaway non-tail recursion at the depth limit', async () => {
    const err = await failure('($f := function($x){ 1 + $f($x) }; $f(1))', state, { maxDepth: 200 })
    expect(err.reason).toBe('depth')
  })

  it('refuses a result larger than the size limit', async () => {
    const err = await failure('$pad("", 2000, "x")', state, { maxResultBytes: 1000 })
    expect(err.reason).toBe('too-large')
    expect(
      await compileExpression('$pad("", 900, "x")', { maxResultBytes: 1000 }).evaluate(state, 's'),
    ).toHaveLength(900)
  })

  it('refuses a function as a result', async () => {
    expect((await failure('function($x){ $x }')).reason).toBe('not-json')
  })

  it('names the step and the expression when evaluation fails', async () => {
    const err = await failure('$number("abc") + nope()')
    expect(err.step).toBe('calc')
    expect(err.expression).toBe('$number("abc") + nope()')
    expect(err.code).toBe('expression')
  })

  it('reports syntax errors at compile time', () => {
    expect(expressionSyntaxError('a +')).toMatch(/Unexpected end/)
    expect(expressionSyntaxError('a + 1')).toBeUndefined()
    expect(() => compileExpression('(')).toThrow(ExpressionSyntaxError)
  })
})
