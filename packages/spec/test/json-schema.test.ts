import { describe, expect, it } from 'vitest'
import { jsonSchemaErrors, validateAgainstSchema } from '@weave/spec'

describe('JSON Schema checks', () => {
  it('refuses an $async schema, which would pass every value without checking it', () => {
    const schema = { type: 'object', properties: { a: { $async: true, type: 'string' } } }
    expect(jsonSchemaErrors(schema)).toEqual([
      { path: '/properties/a/$async', message: '$async schemas are not supported' },
    ])
  })

  it('never counts an asynchronous validation as valid', () => {
    const problems = validateAgainstSchema({ $async: true, type: 'object', required: ['x'] }, {})
    expect(problems).toHaveLength(1)
  })

  it('reports a missing required property at its path', () => {
    expect(validateAgainstSchema({ type: 'object', required: ['amount'] }, {})).toEqual([
      { path: '/amount', message: 'required' },
    ])
  })

  it.each([
    ['$ref to itself', { $ref: '#' }],
    ['$dynamicRef to itself', { $dynamicAnchor: 'meta', $dynamicRef: '#meta' }],
    ['$ref through $defs', { $defs: { x: { $ref: '#' } }, allOf: [{ $ref: '#/$defs/x' }] }],
  ])('refuses a schema that checks the same value again without end: %s', (_kind, schema) => {
    expect(jsonSchemaErrors(schema)).toEqual([
      { path: '', message: expect.stringContaining('refers to itself without end') },
    ])
  })

  it('keeps a recursive schema that ends, such as a tree', () => {
    const tree = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } } },
    }
    expect(jsonSchemaErrors(tree)).toEqual([])
    expect(validateAgainstSchema(tree, { children: [{ children: [] }] })).toEqual([])
    expect(validateAgainstSchema(tree, { children: [1] })).toHaveLength(1)
  })

  it('refuses a value, rather than failing, when the schema recurses without end on it', () => {
    // Endless only for an object with `a`: the samples registration tries do not reach it.
    const schema = { if: { type: 'object', required: ['a'] }, then: { $ref: '#' } }
    expect(jsonSchemaErrors(schema)).toEqual([])
    expect(validateAgainstSchema(schema, {})).toEqual([])
    expect(validateAgainstSchema(schema, { a: 1 })).toEqual([
      { path: '', message: expect.stringContaining('refers to itself without end') },
    ])
  })

  it("names a schema too deeply nested to compile in its own words, not the engine's", () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 20_000; i++) schema = { items: schema }
    const problems = jsonSchemaErrors(schema)
    expect(problems).toHaveLength(1)
    expect(problems[0]?.message).not.toMatch(/call stack/i)
  })
})
