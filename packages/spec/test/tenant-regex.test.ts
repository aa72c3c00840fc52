import jsonata from 'jsonata'
import { describe, expect, it } from 'vitest'
import {
  compileExpression,
  ExpressionError,
  ExpressionSyntaxError,
  expressionSyntaxError,
  jsonSchemaErrors,
  validateAgainstSchema,
  validateSpec,
} from '@weave/spec'
import { mayRunRegex } from '../src/expression-regex.js'

// Catastrophic for a backtracking engine: every split of the a's is tried before failing.
const CATASTROPHIC = '(a+)+$'
const EVIL = `${'a'.repeat(40)}!`

async function evaluate(source: string, state = {}, limits = {}) {
  return compileExpression(source, limits).evaluate(state, 'calc')
}

async function failure(source: string, state = {}, limits = {}): Promise<ExpressionError> {
  try {
    await evaluate(source, state, limits)
  } catch (err) {
    return err as ExpressionError
  }
  throw new Error('expected a failure')
}

describe('JSON Schema patterns', () => {
  it('match a catastrophic pattern in linear time, with the usual result', () => {
    const schema = { type: 'string', pattern: CATASTROPHIC }
    expect(validateAgainstSchema(schema, EVIL)).toEqual([
      { path: '', message: `must match pattern "${CATASTROPHIC}"` },
    ])
    expect(validateAgainstSchema(schema, 'xaaa')).toEqual([])
  })

  it('apply each patternProperties key to its own properties', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^n_': { type: 'number' }, '^s_': { type: 'string' } },
    }
    expect(validateAgainstSchema(schema, { n_a: 1, s_a: 'x' })).toEqual([])
    expect(validateAgainstSchema(schema, { n_a: 'x', s_a: 1 })).toHaveLength(2)
  })

  it('refuses patterns RE2 cannot run, at their JSON Pointer', () => {
    const schema = {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '(a)\\1' },
        tags: { type: 'array', items: { pattern: 'x(?=y)' } },
        // Data, not a pattern: never checked.
        example: { const: { pattern: '(a)\\1' } },
      },
      patternProperties: { '(?<!a)b': {} },
    }
    expect(jsonSchemaErrors(schema)).toEqual([
      {
        path: '/properties/code/pattern',
        message:
          'pattern "(a)\\1" is not supported: a backreference cannot be matched in linear time (RE2)',
      },
      {
        path: '/properties/tags/items/pattern',
        message:
          'pattern "x(?=y)" is not supported: a lookahead cannot be matched in linear time (RE2)',
      },
      {
        path: '/patternProperties/(?<!a)b',
        message:
          'pattern "(?<!a)b" is not supported: a lookbehind cannot be matched in linear time (RE2)',
      },
    ])
  })

  it('are checked when a spec is registered', async () => {
    const result = await validateSpec({
      entry: 'a',
      steps: { a: { kind: 'set', values: { x: '1' } } },
      input: { type: 'object', properties: { id: { type: 'string', pattern: '\\k<n>(?<n>a)' } } },
    })
    expect(result).toMatchObject({
      ok: false,
      problems: [
        {
          path: '/input/properties/id/pattern',
          message: expect.stringMatching(/named backreference/),
        },
      ],
    })
  })
})

describe('JSONata regular expressions', () => {
  it('run a catastrophic pattern to its result', async () => {
    expect(await evaluate(`$match(s, /${CATASTROPHIC}/)`, { s: EVIL })).toBeUndefined()
    expect(await evaluate(`$contains(s, /${CATASTROPHIC}/)`, { s: EVIL })).toBe(false)
    expect(await evaluate(`$match(s, /${CATASTROPHIC}/)`, { s: 'xaa' })).toEqual({
      match: 'aa',
      index: 1,
      groups: ['aa'],
    })
  })

  it('keep JSONata’s results for groups, flags, replace and split', async () => {
    expect(await evaluate('$match("ab12 CD345", /([a-z]+)(\\d+)/i)')).toEqual([
      { match: 'ab12', index: 0, groups: ['ab', '12'] },
      { match: 'CD345', index: 5, groups: ['CD', '345'] },
    ])
    expect(await evaluate('$replace("John Smith", /(\\w+)\\s(\\w+)/, "$2, $1")')).toBe(
      'Smith, John',
    )
    expect(await evaluate('$replace("abc", /(x)?b/, "[$1]")')).toBe('a[]c')
    expect(await evaluate('$split("a1b22c", /\\d+/)')).toEqual(['a', 'b', 'c'])
    expect(await evaluate('$match("😀é", /é/).index')).toBe(2)
  })

  it('refuses a pattern RE2 cannot run when the expression is parsed', () => {
    expect(expressionSyntaxError('$match(s, /(a)\\1/i)')).toBe(
      'regular expression /(a)\\1/i: a backreference cannot be matched in linear time (RE2)',
    )
    expect(() => compileExpression('$replace(s, /a(?!b)/, "")')).toThrow(ExpressionSyntaxError)
    expect(expressionSyntaxError('$match(s, /a+/)')).toBeUndefined()
  })

  it('fails cleanly on such a pattern reached through $eval', async () => {
    const err = await failure('$eval("$match(\'aa\', /(a)\\\\1/)")')
    expect(err).toBeInstanceOf(ExpressionError)
    expect(err.message).toMatch(/backreference/)
  })

  it('stop a single $match call at the time limit', async () => {
    const err = await failure('$match(s, /a/)', { s: 'a'.repeat(1_000_000) }, { timeoutMs: 50 })
    expect(err.reason).toBe('timeout')
  })

  it('run under the regex deadline whenever a regex can run: a literal, or $eval by any name', () => {
    const ast = (source: string) => jsonata(source).ast()
    expect(mayRunRegex(ast('$match(s, /a/)'))).toBe(true)
    expect(mayRunRegex(ast('{ "x": [1, $replace(s, /b+/i, "c")] }'))).toBe(true)
    expect(mayRunRegex(ast('$eval(code)'))).toBe(true)
    expect(mayRunRegex(ast('($e := $eval; $e(code))'))).toBe(true)
    expect(mayRunRegex(ast('$merge([$, { "result1": { "done": true, "note": s } }])'))).toBe(false)
    expect(mayRunRegex(ast('$replace(s, "a", "b") & $split(s, ",")[0]'))).toBe(false)
  })
})

describe('string sizes in expressions', () => {
  it('refuse a $pad wider than the string limit', async () => {
    const err = await failure('$pad("", 1000000000, "x")')
    expect(err.reason).toBe('too-large')
    expect(err.message).toMatch(/\$pad: a string longer than 1048576 characters is not allowed/)
    expect(await evaluate('$pad("ab", -4, ".")')).toBe('..ab')
  })

  it('refuse a builtin call on or producing a string over the limit', async () => {
    const limits = { maxStringLength: 100 }
    expect((await failure('$length($pad("", 90) & $pad("", 90))', {}, limits)).reason).toBe(
      'too-large',
    )
    expect((await failure('$replace(s, "a", "bbbb")', { s: 'a'.repeat(50) }, limits)).reason).toBe(
      'too-large',
    )
    expect((await failure('$join([s, s, s])', { s: 'x'.repeat(40) }, limits)).reason).toBe(
      'too-large',
    )
  })

  it('refuse a huge string built with & without writing it out', async () => {
    const err = await failure('$reduce([1..28], function($a, $i){ $a & $a }, "x")')
    expect(err.reason).toBe('too-large')
  })

  it('keep partial application of the guarded builtins', async () => {
    expect(await evaluate('$map(["a", "bb"], $pad(?, 3, "."))')).toEqual(['a..', 'bb.'])
    expect(await evaluate('$map(["a", "b"], $uppercase)')).toEqual(['A', 'B'])
  })
})
