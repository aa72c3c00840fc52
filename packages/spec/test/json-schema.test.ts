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
})
