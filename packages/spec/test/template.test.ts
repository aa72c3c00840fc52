import { describe, expect, it } from 'vitest'
import { compileTemplate, ExpressionSyntaxError, templateSyntaxErrors } from '@weave/spec'

const state = { amount: 120, customer: 'Ada', tags: ['a', 'b'], meta: { vip: true }, __error: 'x' }

describe('templates', () => {
  it('renders strings as they are and other values as JSON', async () => {
    const t = compileTemplate('Refund {{ amount }} to {{customer}}: {{ tags }} {{ meta }}')
    expect(await t.render(state, 's')).toBe('Refund 120 to Ada: ["a","b"] {"vip":true}')
  })

  it('renders nothing for a placeholder that matches nothing and hides __ keys', async () => {
    expect(await compileTemplate('[{{ nope }}][{{ __error }}]').render(state, 's')).toBe('[][]')
  })

  it('accepts object constructors whose braces look like a closing "}}"', async () => {
    const t = compileTemplate("x={{ {'a': {'b': amount}} }}!")
    expect(await t.render(state, 's')).toBe('x={"a":{"b":120}}!')
  })

  it('is plain text without placeholders', async () => {
    expect(await compileTemplate('no placeholders').render(state, 's')).toBe('no placeholders')
  })

  it('reports each placeholder that does not parse, and unclosed ones', () => {
    expect(templateSyntaxErrors('{{ a + }} and {{ b }} and {{ }}')).toEqual([
      expect.stringMatching(/^placeholder "\{\{ a \+ \}\}" does not parse/),
      expect.stringMatching(/^placeholder "\{\{ \}\}" does not parse: empty placeholder/),
    ])
    expect(templateSyntaxErrors('hello {{ name')).toEqual(['placeholder at 6 has no closing "}}"'])
    expect(() => compileTemplate('{{ ( }}')).toThrow(ExpressionSyntaxError)
  })
})
