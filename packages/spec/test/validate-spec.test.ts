import { describe, expect, it } from 'vitest'
import { validateSpec, type GraphSpec } from '@weave/spec'
import { exampleSpec } from './fixtures/example-spec.js'

const other: GraphSpec = {
  entry: 'call',
  history: -1,
  steps: { call: { kind: 'subgraph', graph: 'me' } },
}
const approver: GraphSpec = {
  entry: 'ask',
  history: -1,
  steps: { ask: { kind: 'approval', title: 'ok?' } },
}
const registry: Record<string, GraphSpec> = { other, approver }
const resolveGraph = (name: string, version?: number) =>
  version === undefined ? registry[name] : undefined

async function problemsOf(doc: unknown, ctx = {}) {
  const result = await validateSpec(doc, ctx)
  if (result.ok) throw new Error('expected problems')
  return result.problems
}

describe('validateSpec', () => {
  it('accepts the GRAPH-SPEC example and applies the history default', async () => {
    const doc = exampleSpec('https://payments.example/refunds')
    delete doc.history
    const result = await validateSpec(doc)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.spec.history).toBe(-1)
  })

  it('accepts a retention policy and refuses one it cannot apply, naming the field', async () => {
    const steps = { a: { kind: 'set', values: {} } }
    for (const retention of [
      { checkpoints: 'all' },
      { checkpoints: 'none', runDays: 30 },
      { checkpoints: { last: 5 } },
      { runDays: 1 },
    ]) {
      expect((await validateSpec({ entry: 'a', steps, retention })).ok).toBe(true)
    }
    const bad = [
      [{ checkpoints: { last: 0 } }, '/retention/checkpoints'],
      [{ checkpoints: 'some' }, '/retention/checkpoints'],
      [{ runDays: 0 }, '/retention/runDays'],
      [{ runDays: 1.5 }, '/retention/runDays'],
      [{ keep: 'forever' }, '/retention'],
    ] as const
    for (const [retention, path] of bad) {
      const problems = await problemsOf({ entry: 'a', steps, retention })
      expect(problems.map((p) => p.path).some((p) => p.startsWith(path))).toBe(true)
    }
  })

  it('reports every problem at once, each at its JSON Pointer', async () => {
    const doc = {
      entry: 'start',
      extra: true,
      input: { type: 'nope' },
      steps: {
        start: { kind: 'set', values: { a: '1 +', __yield: 'true' }, next: 'review' },
        review: {
          kind: 'approval',
          title: 'Refund {{ amount + }}?',
          timeout: 'P2X',
          next: { when: [{ if: 'status = ', then: 'ghost' }], else: 'done' },
        },
        done: { kind: 'teleport', next: 'fan' },
        fan: {
          kind: 'parallel',
          branches: { a: { kind: 'approval', title: 't' }, b: { kind: 'set', values: {} } },
          next: 'child',
        },
        child: { kind: 'subgraph', graph: 'missing-graph', next: 'self' },
        self: { kind: 'subgraph', graph: 'me', next: 'via' },
        via: { kind: 'subgraph', graph: 'other', next: 42 },
        orphan: { kind: 'fail', message: 'never' },
        'bad name!': { kind: 'fail', message: 'x' },
        asks: { kind: 'input', schema: { type: 'object', required: 'yes' } },
      },
    }
    const problems = await problemsOf(doc, { resolveGraph, selfName: 'me' })
    const at = (path: string) => problems.filter((p) => p.path === path).map((p) => p.message)
    expect(at('/extra')).toEqual(['unknown field "extra"'])
    expect(at('/input/type')).toEqual([
      'not a valid JSON Schema: must be equal to one of the allowed values',
    ])
    expect(at('/steps/start/values/a')[0]).toMatch(/^expression does not parse/)
    expect(at('/steps/start/values/__yield')[0]).toMatch(/reserved/)
    expect(at('/steps/review/title')[0]).toMatch(/^template: placeholder "\{\{ amount \+ \}\}"/)
    expect(at('/steps/review/timeout')[0]).toMatch(/invalid ISO 8601 duration "P2X"/)
    expect(at('/steps/review/next/when/0/if')[0]).toMatch(/^expression does not parse/)
    expect(at('/steps/review/next/when/0/then')).toEqual(['route to missing step "ghost"'])
    expect(at('/steps/done/kind')[0]).toMatch(/^unknown step kind "teleport"/)
    expect(at('/steps/fan/branches/a/kind')).toEqual([
      'kind "approval" is not allowed in a parallel branch: use one of set, http, llm, handler, subgraph',
    ])
    expect(at('/steps/child/graph')).toEqual(['unknown graph "missing-graph"'])
    expect(at('/steps/self/graph')).toEqual(['subgraph cycle: graph "me" runs itself'])
    expect(at('/steps/via/graph')).toEqual(['subgraph cycle: "me" → "other" → "me"'])
    expect(at('/steps/via/next')[0]).toMatch(/^next is a step name, null/)
    expect(at('/steps/orphan')).toEqual(['step "orphan" is not reachable from the entry "start"'])
    expect(at('/steps/bad name!')).toContain(
      'invalid key: a step name must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$',
    )
    expect(at('/steps/asks/schema/required')).toEqual(['not a valid JSON Schema: must be array'])
    expect(at('/steps/asks')).toEqual(['step "asks" is not reachable from the entry "start"'])
    expect(problems).toHaveLength(19)
  })

  it('reports a missing entry, an unknown entry, and a spec that is not an object', async () => {
    expect(await problemsOf({ steps: { a: { kind: 'fail', message: 'x' } } })).toContainEqual({
      path: '/entry',
      message: 'required',
    })
    expect(await problemsOf({ entry: 'nope', steps: {} })).toContainEqual({
      path: '/entry',
      message: 'entry step "nope" does not exist',
    })
    expect((await problemsOf([])).map((p) => p.path)).toEqual([''])
  })

  it('refuses JSON Schemas of other drafts and references that do not resolve', async () => {
    const problems = await problemsOf({
      entry: 'a',
      input: { $schema: 'http://json-schema.org/draft-07/schema#' },
      steps: { a: { kind: 'input', schema: { $ref: '#/$defs/nope' } } },
    })
    expect(problems).toEqual([
      {
        path: '/input/$schema',
        message: 'not a valid JSON Schema: only JSON Schema draft 2020-12 is supported',
      },
      {
        path: '/steps/a/schema',
        message: "not a valid JSON Schema: can't resolve reference #/$defs/nope from id #",
      },
    ])
  })

  it('reports branch routes and defaults to missing steps', async () => {
    const problems = await problemsOf({
      entry: 'a',
      steps: {
        a: {
          kind: 'set',
          values: {},
          next: { branch: 'x', routes: { y: 'nope' }, default: 'gone' },
        },
      },
    })
    expect(problems).toEqual([
      { path: '/steps/a/next/routes/y', message: 'route to missing step "nope"' },
      { path: '/steps/a/next/default', message: 'route to missing step "gone"' },
    ])
  })

  it('rejects unknown fields inside steps and routing objects', async () => {
    const problems = await problemsOf({
      entry: 'a',
      steps: {
        a: {
          kind: 'http',
          method: 'GET',
          url: 'https://x.example',
          body: '1',
          colour: 'red',
          next: { when: [{ if: 'true', then: null, also: 1 }] },
        },
      },
    })
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '/steps/a/colour', message: 'unknown field "colour"' },
        { path: '/steps/a/next/when/0/also', message: 'unknown field "also"' },
      ]),
    )
  })

  it('checks step-level rules: a wait has one of duration/until, GET has no body', async () => {
    const problems = await problemsOf({
      entry: 'w',
      steps: {
        w: { kind: 'wait', next: 'g' },
        g: { kind: 'http', method: 'GET', url: 'https://x.example', body: '{}' },
      },
    })
    expect(problems).toEqual([
      { path: '/steps/w', message: 'a wait step has exactly one of duration or until' },
      { path: '/steps/g/body', message: 'GET and HEAD requests have no body' },
    ])
  })

  it('names a missing version and refuses a suspending subgraph in a parallel branch', async () => {
    const problems = await problemsOf(
      {
        entry: 'p',
        steps: {
          p: {
            kind: 'parallel',
            branches: {
              old: { kind: 'subgraph', graph: 'other', version: 9 },
              ask: { kind: 'subgraph', graph: 'approver' },
            },
          },
        },
      },
      { resolveGraph, selfName: 'fresh' },
    )
    expect(problems).toEqual([
      { path: '/steps/p/branches/old/graph', message: 'graph "other" has no version 9' },
      {
        path: '/steps/p/branches/ask/graph',
        message:
          'a parallel branch cannot suspend, but graph "approver" has the approval step "ask"',
      },
    ])
  })

  it('follows an explicit older version of itself instead of calling it a cycle', async () => {
    const mine: Record<string, GraphSpec> = {
      'me@1': { entry: 'x', history: -1, steps: { x: { kind: 'set', values: {} } } },
    }
    const result = await validateSpec(
      { entry: 's', steps: { s: { kind: 'subgraph', graph: 'me', version: 1 } } },
      { selfName: 'me', resolveGraph: (n: string, v?: number) => mine[`${n}@${v}`] },
    )
    expect(result.ok).toBe(true)
  })
})
