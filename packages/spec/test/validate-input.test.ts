import { describe, expect, it } from 'vitest'
import { GraphSpec, validateRunInput, validateThreadRunInput } from '../src/index.js'

const spec = GraphSpec.parse({
  entry: 'a',
  steps: { a: { kind: 'set', values: {} } },
  input: {
    type: 'object',
    required: ['account', 'a/b'],
    properties: {
      account: { type: 'string' },
      'a/b': { type: 'string' },
      address: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
    },
    additionalProperties: false,
  },
})

describe('validateThreadRunInput', () => {
  it("holds a thread's first run to the whole schema, as a plain run", () => {
    const input = { address: { city: 'Oslo' } }
    expect(validateThreadRunInput(spec, input, { isFirstRun: true })).toEqual(
      validateRunInput(spec, input),
    )
    expect(validateThreadRunInput(spec, input, { isFirstRun: true })).toEqual([
      { path: '/account', message: 'required' },
      { path: '/a~1b', message: 'required' },
    ])
  })

  it("lets a later run leave out the keys the thread's state holds, never mistype one", () => {
    const later = { isFirstRun: false }
    expect(validateThreadRunInput(spec, { address: { city: 'Oslo' } }, later)).toEqual([])
    expect(validateThreadRunInput(spec, { account: 7 }, later)).toEqual([
      { path: '/account', message: 'must be string' },
    ])
    // A key the schema does not know, and a nested object missing its own required key.
    expect(validateThreadRunInput(spec, { extra: 1, address: {} }, later)).toEqual(
      expect.arrayContaining([
        { path: '/extra', message: 'unknown field' },
        { path: '/address/city', message: 'required' },
      ]),
    )
    expect(validateThreadRunInput(spec, 'text', later)).toHaveLength(1)
  })
})
