import fc from 'fast-check'
import { nastyString } from './hostile-values.js'

// Expressions and templates that parse, that do not, and that probe JSONata's corners.
const EXPRESSIONS = [
  'amount * 2',
  "total > 100 ? 'big' : 'small'",
  '$sum([1, 2, 3])',
  '$string(amount)',
  '"a" & "b"',
  'a.b.c',
  '$',
  '(',
  '**',
  '',
  '$eval("1 + 1")',
  '[1..100000000]',
  '$match("aaaa", /a+/)',
  '{{ amount }}',
]
const TEMPLATES = [
  'Charge {{ total }}?',
  '{{',
  '}}',
  '{{ ( }}',
  'plain',
  '',
  '{{ amount }} {{ x.y }}',
]
const DURATIONS = ['P2D', 'PT1S', 'PT0S', 'P99999999Y', 'bogus', '', 'P1W', '-P1D']

/** JSON Schemas a graph author might send as an input schema: good, broken, and odd. */
export const INPUT_SCHEMAS: readonly unknown[] = [
  { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
  { type: 'object', additionalProperties: false },
  { type: 'object', properties: { when: { type: 'string', format: 'date-time' } } },
  { type: 'string', pattern: '(' },
  { type: 'nope' },
  { $ref: '#/$defs/missing' },
  { $ref: 'https://example.com/schema.json' },
  { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
  { $schema: 'http://json-schema.org/draft-04/schema#' },
  { $id: 'urn:weave:fuzz', type: 'object' },
  { $async: true, type: 'object', required: ['amount'] },
  { unevaluatedProperties: false, properties: { a: true } },
  JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
  { minimum: 'one' },
  true,
  false,
  null,
  [],
  'object',
  42,
]

/** A step of a random kind with random, often invalid, fields; `next` names a later step. */
function step(next: string | null): fc.Arbitrary<Record<string, unknown>> {
  const expression = fc.oneof(fc.constantFrom(...EXPRESSIONS), nastyString())
  const template = fc.oneof(fc.constantFrom(...TEMPLATES), nastyString())
  return fc.oneof(
    fc.record({
      kind: fc.constant('set'),
      values: fc.dictionary(fc.constantFrom('total', 'size', '__x', 'a'), expression, {
        maxKeys: 2,
      }),
      next: fc.constant(next),
    }),
    fc.record(
      {
        kind: fc.constant('approval'),
        title: template,
        details: expression,
        approvers: fc.record({ subjects: fc.array(fc.string(), { maxLength: 2 }) }),
        required: fc.integer({ min: -1, max: 5 }),
        separationOfDuties: fc.boolean(),
        timeout: fc.constantFrom(...DURATIONS),
        onTimeout: fc.constantFrom('expire', 'fail', 'explode'),
        next: fc.constant(next),
      },
      { requiredKeys: ['kind', 'title', 'next'] },
    ),
    fc.record(
      {
        kind: fc.constant('input'),
        schema: fc.constantFrom(...INPUT_SCHEMAS),
        prompt: template,
        next: fc.constant(next),
      },
      { requiredKeys: ['kind', 'next'] },
    ),
    fc.record({
      kind: fc.constant('wait'),
      duration: fc.constantFrom(...DURATIONS),
      next: fc.constant(next),
    }),
    fc.record({
      kind: fc.constant('subgraph'),
      graph: fc.constantFrom('pricing', 'refunds', 'missing-graph', 'fuzz-self', ''),
      version: fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }),
      next: fc.constant(next),
    }),
    fc.record({
      kind: fc.constant('http'),
      method: fc.constantFrom('POST', 'GET', 'BREW'),
      url: fc.constantFrom(
        'https://payments.example/refunds',
        'http://127.0.0.1/',
        '{{ url }}',
        'not a url',
      ),
      next: fc.constant(next),
    }),
    fc.record({ kind: fc.constant('fail'), message: template, next: fc.constant(next) }),
    fc.record({
      kind: fc.constant('handler'),
      name: fc.constantFrom('crm.notify', ''),
      next: fc.constant(next),
    }),
    fc.record({ kind: nastyString(), next: fc.constant(next) }),
  )
}

/**
 * Graph specs from valid to subtly broken: a chain of 1–4 steps of any kind, an input schema
 * from {@link INPUT_SCHEMAS}, odd limits and history, and sometimes an entry that is missing.
 */
export function graphSpec(): fc.Arbitrary<Record<string, unknown>> {
  return fc.integer({ min: 1, max: 4 }).chain((length) => {
    const names = Array.from({ length }, (_, index) => `s${index}`)
    const steps = fc.tuple(...names.map((_, index) => step(names[index + 1] ?? null)))
    return fc
      .record(
        {
          entry: fc.oneof(
            { arbitrary: fc.constant('s0'), weight: 5 },
            { arbitrary: nastyString(), weight: 1 },
          ),
          steps,
          input: fc.constantFrom(...INPUT_SCHEMAS),
          limits: fc.record({
            maxIterations: fc.integer({ min: -1, max: 1000 }),
            stepBudget: fc.integer({ min: 0, max: 10 }),
          }),
          history: fc.integer({ min: -2, max: 5 }),
          merge: fc.dictionary(
            fc.constantFrom('a', 'messages'),
            fc.constantFrom('append', 'sum', 'mergeObject', 'overwrite', 'nope'),
            { maxKeys: 2 },
          ),
        },
        { requiredKeys: ['entry', 'steps'] },
      )
      .map(({ steps: list, ...rest }) => ({
        ...rest,
        steps: Object.fromEntries(names.map((name, index) => [name, list[index]])),
      }))
  })
}
