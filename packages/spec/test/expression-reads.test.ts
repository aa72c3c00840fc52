import jsonata from 'jsonata'
import { describe, expect, it } from 'vitest'
import type { State } from '@weave/kernel'
import { compileExpression } from '@weave/spec'
import { CONTEXT_BUILTINS, CONTEXT_FREE_BUILTINS, stateKeysRead } from '../src/expression-reads.js'

function keysRead(source: string): string[] | undefined {
  const keys = stateKeysRead(jsonata(source).ast())
  return keys === undefined ? undefined : [...keys].sort()
}

async function signatureOf(name: string): Promise<string> {
  const fn = (await jsonata(`$${name}`).evaluate({})) as { signature?: { definition?: string } }
  return fn.signature?.definition ?? ''
}

// A key no expression below reads, whose copy fails: an expression that copied it would throw.
const UNCOPYABLE = {
  toJSON() {
    throw new Error('the unread key was copied')
  },
}

const state = Object.freeze({
  name: 'Ada',
  amount: 150,
  items: Object.freeze([
    Object.freeze({ price: 2, tags: Object.freeze(['a']) }),
    Object.freeze({ price: 5, tags: Object.freeze(['b', 'c']) }),
  ]),
  nested: Object.freeze({ deep: Object.freeze({ name: 'inner' }) }),
  __budget_remaining: 3,
}) as unknown as Readonly<State>

describe('the state keys an expression can read', () => {
  it('lists the builtins by what JSONata says of their parameters', async () => {
    for (const name of CONTEXT_FREE_BUILTINS) {
      expect(await signatureOf(name), name).not.toContain('-')
    }
    for (const name of CONTEXT_BUILTINS) {
      if (name === 'eval') continue
      expect(await signatureOf(name), name).toContain('-')
    }
    // $eval has no context parameter but evaluates against the input when given no focus.
    expect(await signatureOf('eval')).not.toContain('-')
    expect(await jsonata(`$eval('name')`).evaluate({ name: 'x' })).toBe('x')
  })

  it('is every field name the expression mentions', () => {
    expect(keysRead(`{ 'done': true, 'index': 1 }`)).toEqual([])
    expect(keysRead(`"hi " & name`)).toEqual(['name'])
    expect(keysRead('items[price > 3].tags')).toEqual(['items', 'price', 'tags'])
    expect(keysRead('$sum(items.price) > amount ? "big" : "small"')).toEqual([
      'amount',
      'items',
      'price',
    ])
    expect(keysRead('($f := function($x) { $x.price }; $map(items, $f))')).toEqual([
      'items',
      'price',
    ])
    expect(keysRead('items@$item.$item.price')).toEqual(['items', 'price'])
    expect(keysRead('items#$i[$i = 0].price')).toEqual(['items', 'price'])
  })

  it('is the whole state when the expression can read it without naming a key', () => {
    for (const source of [
      '$',
      '$$.name',
      '*',
      '**.name',
      'items.%.amount',
      '$string()',
      '$keys()',
      '$string(name)',
      '$substring(1, 2)',
      '$each(function($v, $k) { $k })',
      `$eval('name')`,
      '$lookup($, "name")',
      'name ~> $uppercase',
      '$unknown(name)',
      '($f := function($x)<s-:s>{ $x }; $f())',
      '($string(); $string := function($x) { $x })',
      '($sum := $string; $sum())',
    ]) {
      expect(keysRead(source), source).toBeUndefined()
    }
  })
})

describe('an expression evaluates against the keys it can read', () => {
  it('gives what it gives against the whole state', async () => {
    const sources = [
      `{ 'done': true, 'index': 1 }`,
      `"hi " & name`,
      'items[price > 3].tags',
      '$sum(items.price) > amount ? "big" : "small"',
      'nested.deep.name',
      '($f := function($x) { $x.price }; $map(items, $f))',
      'items@$item.$item.price',
      '$string()',
      '$keys()',
      '$count(*)',
      '**.name',
      '$$.amount',
      `$eval('name')`,
      '$each(function($v, $k) { $k })',
      '$lookup($, "amount")',
    ]
    const whole = JSON.parse(JSON.stringify({ ...state, __budget_remaining: undefined }))
    for (const source of sources) {
      const expected: unknown = await jsonata(source).evaluate(whole)
      const got = await compileExpression(source).evaluate(state, 's')
      expect(got, source).toEqual(JSON.parse(JSON.stringify(expected ?? null)) ?? undefined)
    }
  })

  it('copies only those keys', async () => {
    const withUncopyable = { ...state, blob: UNCOPYABLE } as unknown as Readonly<State>
    expect(await compileExpression(`"hi " & name`).evaluate(withUncopyable, 's')).toBe('hi Ada')
    await expect(compileExpression('$keys()').evaluate(withUncopyable, 's')).rejects.toThrow(
      /the unread key was copied/,
    )
  })
})
