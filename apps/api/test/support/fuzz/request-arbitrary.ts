import fc from 'fast-check'
import { hostileJsonValue, nastyString, rawBodyText } from './hostile-values.js'
import type { OperationDoc, ParameterDoc, SchemaNode } from './openapi-operations.js'
import {
  NUMERIC_TEXT,
  authorization,
  contentType,
  extraHeaders,
  percentEncode,
  scalarText,
  type FuzzTokens,
} from './request-parts.js'
import { invalidValue, validValue, type SchemaContext } from './schema-arbitrary.js'

/** One request as `app.inject` sends it. */
export interface FuzzRequest {
  method: OperationDoc['method']
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
}

/** What the fuzzer knows about the seeded data, so some generated values hit real rows. */
export interface FuzzSeeds {
  tokens: FuzzTokens
  /** Known-good sets of path parameters (a run id with one of its checkpoint seqs). */
  pathSets: readonly PathSet[]
  /** Known-good path parameter values by parameter name (`id`, `name`, `version`, `seq`). */
  pathValues: Record<string, readonly string[]>
  /** Known-good query values by parameter name (`cursor`, `runId`, `graph`, ...). */
  queryValues: Record<string, readonly string[]>
  /** More query value generators by parameter name (forged cursors). */
  queryArbitraries: Record<string, fc.Arbitrary<string>>
  /** Known-good body values by property name (`graph`, `spec`, `materialHash`, ...). */
  bodyHints: Record<string, readonly unknown[]>
  /** Extra generators for body properties whose schema says little (a graph `spec`). */
  bodyArbitraries: Record<string, fc.Arbitrary<unknown>>
}

// Path segments as they appear on the wire, percent-escapes included, some of them broken.
const RAW_SEGMENTS = [
  '',
  '.',
  '..',
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '%00',
  '%2F',
  '%2e%2e',
  'a%2Fb',
  '..%2F..',
  '%0D%0A',
  '%25',
  '%u0041',
  ';',
  '*',
  '~',
  'a/b',
]

/** A known-good set of path parameters, for the operations whose path starts with `prefix`. */
export interface PathSet {
  prefix: string
  values: Record<string, string>
}

type Part = 'path' | 'query' | 'authorization' | 'body' | 'contentType' | 'headers'
type Parts = Record<Part, fc.Arbitrary<unknown>>
const PARTS: readonly Part[] = ['path', 'query', 'authorization', 'body', 'contentType', 'headers']

/**
 * Requests for one operation. Three in ten are well-formed throughout (known ids, documented
 * query values, a body the schema accepts, a full-scope token), so they reach the services and
 * the database; four in ten change one part of such a request; three in ten are noisy everywhere.
 */
export function requestArbitrary(
  operation: OperationDoc,
  seeds: FuzzSeeds,
  context: SchemaContext,
): fc.Arbitrary<FuzzRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path')
  const queryParameters = operation.parameters.filter((p) => p.in === 'query')
  const good: Parts = {
    path: goodPath(operation, pathParameters, seeds, context),
    query: queryString(queryParameters, seeds, context, true),
    authorization: fc.constant(`Bearer ${seeds.tokens.all}`),
    body: operation.body ? goodBody(operation.body, seeds, context) : fc.constant(undefined),
    contentType: fc.constant(operation.body ? 'application/json' : undefined),
    headers: extraHeaders(true),
  }
  const noisy: Parts = {
    path: fc
      .tuple(...pathParameters.map((p) => pathSegment(p, seeds, context)))
      .map((segments) =>
        Object.fromEntries(pathParameters.map((p, index) => [p.name, segments[index] ?? ''])),
      ),
    query: queryString(queryParameters, seeds, context, false),
    authorization: authorization(seeds.tokens),
    body: body(operation, seeds, context),
    contentType: contentType(),
    headers: extraHeaders(false),
  }
  const mixed = (noisyPart: (part: Part) => boolean) =>
    fc.record(
      Object.fromEntries(
        PARTS.map((part) => [part, noisyPart(part) ? noisy[part] : good[part]]),
      ) as Parts,
    )
  return fc
    .oneof(
      { arbitrary: mixed(() => false), weight: 3 },
      {
        arbitrary: fc.constantFrom(...PARTS).chain((bad) => mixed((part) => part === bad)),
        weight: 4,
      },
      { arbitrary: mixed(() => true), weight: 3 },
    )
    .map((parts) => {
      const segments = parts.path as Record<string, string>
      let path = operation.path
      for (const parameter of pathParameters) {
        path = path.replace(`{${parameter.name}}`, () => segments[parameter.name] ?? '')
      }
      const headers = { ...(parts.headers as Record<string, string>) }
      if (typeof parts.authorization === 'string') headers.authorization = parts.authorization
      if (typeof parts.contentType === 'string') headers['content-type'] = parts.contentType
      const request: FuzzRequest = {
        method: operation.method,
        url: path + String(parts.query),
        headers,
      }
      if (parts.body !== undefined) request.payload = parts.body as string | Buffer
      return request
    })
}

function goodPath(
  operation: OperationDoc,
  parameters: readonly ParameterDoc[],
  seeds: FuzzSeeds,
  context: SchemaContext,
): fc.Arbitrary<Record<string, string>> {
  const encode = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries(values).map(([name, value]) => [name, percentEncode(value)]))
  const sets = seeds.pathSets.filter(
    (set) => operation.path.startsWith(set.prefix) && parameters.every((p) => p.name in set.values),
  )
  const perParameter = fc
    .tuple(
      ...parameters.map((p) => {
        const known = seeds.pathValues[p.name] ?? []
        const valid = scalarText(validValue(p.schema, context))
        return known.length > 0 ? fc.oneof(fc.constantFrom(...known), valid) : valid
      }),
    )
    .map((values) =>
      encode(Object.fromEntries(parameters.map((p, index) => [p.name, values[index] ?? '']))),
    )
  if (sets.length === 0) return perParameter
  return fc.oneof(
    { arbitrary: fc.constantFrom(...sets).map((set) => encode(set.values)), weight: 4 },
    { arbitrary: perParameter, weight: 1 },
  )
}

function goodBody(
  schema: SchemaNode,
  seeds: FuzzSeeds,
  context: SchemaContext,
): fc.Arbitrary<string> {
  const hinted: SchemaContext = {
    ...context,
    hints: seeds.bodyHints,
    extras: seeds.bodyArbitraries,
  }
  return validValue(schema, hinted).map((value) => JSON.stringify(value))
}

function pathSegment(
  parameter: ParameterDoc,
  seeds: FuzzSeeds,
  context: SchemaContext,
): fc.Arbitrary<string> {
  const known = seeds.pathValues[parameter.name] ?? []
  const typed = parameter.schema.type === 'integer' ? fc.constantFrom(...NUMERIC_TEXT) : fc.uuid()
  const options: fc.WeightedArbitrary<string>[] = [
    { arbitrary: typed.map(percentEncode), weight: 2 },
    { arbitrary: scalarText(validValue(parameter.schema, context)).map(percentEncode), weight: 1 },
    { arbitrary: nastyString().map(percentEncode), weight: 4 },
    { arbitrary: fc.constantFrom(...RAW_SEGMENTS), weight: 2 },
    {
      arbitrary: fc
        .string({ minLength: 101, maxLength: 400, unit: 'grapheme-ascii' })
        .map(percentEncode),
      weight: 1,
    },
  ]
  if (known.length > 0) {
    options.push({ arbitrary: fc.constantFrom(...known).map(percentEncode), weight: 3 })
  }
  return fc.oneof(...options)
}

function queryString(
  parameters: readonly ParameterDoc[],
  seeds: FuzzSeeds,
  context: SchemaContext,
  isClean: boolean,
): fc.Arbitrary<string> {
  const documented = parameters.map((parameter) =>
    fc.option(
      fc
        .array(queryValue(parameter, seeds, context, isClean), {
          minLength: 1,
          maxLength: isClean ? 1 : 2,
        })
        .map((values) => values.map((value) => [parameter.name, value] as const)),
      { nil: [], freq: 2 },
    ),
  )
  if (isClean) {
    return fc.tuple(...documented).map((pairs) => {
      const parts = pairs
        .flat()
        .map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`)
      return parts.length === 0 ? '' : `?${parts.join('&')}`
    })
  }
  const unknownKeys = fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('foo', 'limit[]', 'status[0]', '__proto__', 'constructor', 'a.b', ''),
        nastyString(),
      ),
      nastyString(),
    ),
    { maxLength: 2 },
  )
  const bracketed = fc.option(
    fc
      .constantFrom(...parameters.map((p) => p.name), 'limit')
      .chain((name) =>
        fc.tuple(fc.constant(`${name}[]`), scalarText(fc.jsonValue({ maxDepth: 0 }))),
      ),
    { nil: undefined, freq: 6 },
  )
  const garbage = fc.option(
    fc.constantFrom('&&', '=', 'a==b', '%', '%zz=1', 'limit', '&limit=&', '?'),
    {
      nil: undefined,
      freq: 8,
    },
  )
  return fc
    .record({
      documented: fc.tuple(...documented),
      unknownKeys,
      bracketed,
      garbage,
      isBare: fc.boolean(),
    })
    .map(({ documented, unknownKeys, bracketed, garbage, isBare }) => {
      const pairs = [...documented.flat(), ...unknownKeys, ...(bracketed ? [bracketed] : [])]
      const parts = pairs.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`)
      if (garbage !== undefined) parts.push(garbage)
      if (parts.length === 0) return isBare ? '' : '?'
      return `?${parts.join('&')}`
    })
}

function queryValue(
  parameter: ParameterDoc,
  seeds: FuzzSeeds,
  context: SchemaContext,
  isClean: boolean,
): fc.Arbitrary<string> {
  const known = seeds.queryValues[parameter.name] ?? []
  const extra = seeds.queryArbitraries[parameter.name]
  const valid = scalarText(validValue(parameter.schema, context))
  const good: fc.Arbitrary<string>[] = [valid]
  if (known.length > 0) good.push(fc.constantFrom(...known))
  if (extra) good.push(extra)
  if (isClean) return fc.oneof(...good)
  const options: fc.WeightedArbitrary<string>[] = [
    { arbitrary: scalarText(validValue(parameter.schema, context)), weight: 4 },
    { arbitrary: scalarText(invalidValue(parameter.schema, context)), weight: 2 },
    { arbitrary: nastyString(), weight: 2 },
    { arbitrary: fc.constantFrom(...NUMERIC_TEXT), weight: 1 },
  ]
  if (known.length > 0) options.push({ arbitrary: fc.constantFrom(...known), weight: 3 })
  if (extra) options.push({ arbitrary: extra, weight: 2 })
  return fc.oneof(...options)
}

type Body = string | Buffer | undefined

function body(
  operation: OperationDoc,
  seeds: FuzzSeeds,
  context: SchemaContext,
): fc.Arbitrary<Body> {
  const json = (arbitrary: fc.Arbitrary<unknown>) => arbitrary.map((value) => JSON.stringify(value))
  const random: fc.WeightedArbitrary<Body>[] = [
    { arbitrary: json(fc.jsonValue()), weight: 2 },
    { arbitrary: json(fc.jsonValue({ stringUnit: 'binary' })), weight: 1 },
    { arbitrary: json(hostileJsonValue()), weight: 2 },
    { arbitrary: rawBodyText(), weight: 2 },
  ]
  if (!operation.body) {
    return fc.oneof({ arbitrary: fc.constant(undefined), weight: 16 }, ...random)
  }
  const schema: SchemaNode = operation.body
  const hinted: SchemaContext = {
    ...context,
    hints: seeds.bodyHints,
    extras: seeds.bodyArbitraries,
  }
  return fc.oneof(
    { arbitrary: json(validValue(schema, hinted)), weight: 8 },
    { arbitrary: json(invalidValue(schema, hinted)), weight: 5 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    ...random,
  )
}
