import { readFileSync } from 'node:fs'
import { validateAgainstSchema } from '@weave/spec'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.js'
import {
  GRAPH_REGISTRATION_SCHEMA_PATH,
  GRAPH_SPEC_SCHEMA_PATH,
  graphRegistrationJsonSchema,
  graphSpecJsonSchema,
} from '../src/graph-spec-schema.js'
import { schemaRoutes } from '../src/routes/schemas.js'
import type { ApiServices } from '../src/services/api-services.js'
import { captureLog, testConfig } from './support.js'

type Json = Parameters<typeof validateAgainstSchema>[0]

const read = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')) as Json
const EXAMPLES = ['examples/refund/graph.json', 'examples/support-agent/graph.json']

describe('the graph spec JSON Schema', () => {
  const app = buildApp<ApiServices>({
    config: testConfig(),
    log: captureLog().log,
    services: {} as ApiServices,
    routes: [schemaRoutes],
  })

  it('is served without a token at its $id, cacheable and revalidated by ETag', async () => {
    for (const [path, schema] of [
      [GRAPH_SPEC_SCHEMA_PATH, graphSpecJsonSchema()],
      [GRAPH_REGISTRATION_SCHEMA_PATH, graphRegistrationJsonSchema()],
    ] as const) {
      const response = await app.inject({ method: 'GET', url: path })
      expect(response.statusCode, path).toBe(200)
      expect(response.headers['content-type']).toContain('application/schema+json')
      expect(response.headers['cache-control']).toBe('public, max-age=3600')
      const body = response.json<Record<string, unknown>>()
      expect(body).toEqual(schema)
      expect(body.$id).toBe(path)
      const etag = response.headers.etag as string
      const again = await app.inject({
        method: 'GET',
        url: path,
        headers: { 'if-none-match': etag },
      })
      expect(again.statusCode).toBe(304)
      expect(again.body).toBe('')
    }
  })

  it('is committed as generated, beside the OpenAPI document', () => {
    expect(read('openapi/graph-spec.schema.json')).toEqual(graphSpecJsonSchema())
    expect(read('openapi/graph-registration.schema.json')).toEqual(graphRegistrationJsonSchema())
  })

  // Each validation compiles the whole schema (about 50 KB) afresh: seconds, not milliseconds.
  it(
    'accepts the example graphs, which name it in $schema, and a spec file naming it',
    {
      timeout: 60_000,
    },
    () => {
      for (const path of EXAMPLES) {
        const file = read(path) as Record<string, Json>
        expect(file.$schema, path).toBe('../../openapi/graph-registration.schema.json')
        expect(validateAgainstSchema(graphRegistrationJsonSchema() as Json, file), path).toEqual([])
      }
      const { spec } = read(EXAMPLES[0]!) as { spec: Record<string, Json> }
      const specFile = { $schema: `http://127.0.0.1:3000${GRAPH_SPEC_SCHEMA_PATH}`, ...spec }
      expect(validateAgainstSchema(graphSpecJsonSchema() as Json, specFile)).toEqual([])
    },
  )

  it(
    'refuses a step of an unknown kind and a member a step does not have',
    { timeout: 60_000 },
    () => {
      const file = read(EXAMPLES[0]!) as { spec: { steps: Record<string, Record<string, Json>> } }
      const [name, step] = Object.entries(file.spec.steps)[0]!
      const wrongKind = {
        ...file.spec,
        steps: { ...file.spec.steps, [name]: { ...step, kind: 'sett' } },
      }
      expect(validateAgainstSchema(graphSpecJsonSchema() as Json, wrongKind)).not.toEqual([])
      const extra = { ...file.spec, steps: { ...file.spec.steps, [name]: { ...step, retries: 3 } } }
      expect(validateAgainstSchema(graphSpecJsonSchema() as Json, extra)).not.toEqual([])
    },
  )
})
