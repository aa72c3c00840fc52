import { MAX_STEPS } from '@weave/spec'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GraphVersionView, RegisteredGraph } from '../src/schemas/graphs.js'
import { createApiServices } from '../src/services/api-services.js'
import { DEFAULT_SPEC_BODY_LIMIT_BYTES } from '../src/services/graph-service.js'
import { randomTenant } from './support/database.js'
import {
  buildTestApp,
  callerFor,
  createHarness,
  expectJson,
  expectProblem,
  type Harness,
} from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_graph_registration')
  token = await h.token(tenant, 'alice')
})
afterAll(async () => h?.close())

const register = (name: string, spec: unknown) =>
  h.call({ method: 'POST', url: '/v1/graphs', token, body: { name, spec } })
const version = async (name: string, number: number) =>
  expectJson(
    await h.call({ method: 'GET', url: `/v1/graphs/${name}/versions/${number}`, token }),
    200,
    GraphVersionView,
  )

/** A graph of one `set` step writing `value` under `key`. */
const setter = (key: string, value: string) => ({
  entry: 'a',
  steps: { a: { kind: 'set', values: { [key]: value } } },
})

describe('subgraph versions bound at registration', () => {
  const parent = (label: string) => ({
    entry: 'call',
    steps: {
      call: { kind: 'subgraph', graph: 'child', saveAs: 'called', next: 'fan' },
      fan: {
        kind: 'parallel',
        branches: {
          free: { kind: 'subgraph', graph: 'sibling' },
          pinned: { kind: 'subgraph', graph: 'child', version: 1 },
        },
        next: 'label',
      },
      label: { kind: 'set', values: { label: `'${label}'` } },
    },
  })

  it('binds each subgraph named without a version, top level and branches, to its latest', async () => {
    expectJson(await register('child', setter('made', "'child v1'")), 201, RegisteredGraph)
    expectJson(await register('sibling', setter('made', "'sibling v1'")), 201, RegisteredGraph)
    expectJson(await register('parent', parent('first')), 201, RegisteredGraph)
    expect((await version('parent', 1)).subgraphVersions).toEqual({ child: 1, sibling: 1 })

    expectJson(await register('child', setter('made', "'child v2'")), 201, RegisteredGraph)
    // A version registered before the child changed keeps running the child it was bound to.
    expect((await version('parent', 1)).subgraphVersions).toEqual({ child: 1, sibling: 1 })
    const { graph } = await h.registry.get(tenant, 'parent', 1)
    const result = await graph.run({}, {})
    expect(result.state.called).toMatchObject({ made: 'child v1' })

    expectJson(await register('parent', parent('second')), 201, RegisteredGraph)
    expect((await version('parent', 2)).subgraphVersions).toEqual({ child: 2, sibling: 1 })
  })

  it('binds nothing for a graph without unversioned subgraphs', async () => {
    expectJson(await register('plain', setter('x', '1')), 201, RegisteredGraph)
    expect((await version('plain', 1)).subgraphVersions).toEqual({})
  })
})

describe('graph spec size limits', () => {
  it('refuses a registration body over the spec limit with 413 and registers nothing', async () => {
    const huge = setter('blob', `'${'a'.repeat(DEFAULT_SPEC_BODY_LIMIT_BYTES)}'`)
    const problem = expectProblem(await register('huge', huge), 413, 'payload-too-large')
    expect(problem.detail).toContain(String(DEFAULT_SPEC_BODY_LIMIT_BYTES))
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/graphs/huge', token }),
      404,
      'graph-not-found',
    )
  })

  it('takes its limit from the services, below the general body limit', async () => {
    const services = createApiServices({
      database: h.database,
      jobs: h.queues,
      registry: h.registry,
      specBodyLimitBytes: 2_000,
    })
    const app = await buildTestApp(services)
    try {
      const call = callerFor(app)
      const post = (name: string, spec: unknown) =>
        call({ method: 'POST', url: '/v1/graphs', token, body: { name, spec } })
      expectProblem(await post('wide', setter('blob', `'${'a'.repeat(2_000)}'`)), 413)
      expectJson(await post('narrow', setter('blob', "'a'")), 201, RegisteredGraph)
    } finally {
      await app.close()
    }
  })

  it(`refuses a spec of more than ${MAX_STEPS} steps with 422`, async () => {
    const steps: Record<string, unknown> = {}
    for (let i = 0; i <= MAX_STEPS; i += 1) {
      steps[`s${i}`] = {
        kind: 'set',
        values: { n: String(i) },
        next: i < MAX_STEPS ? `s${i + 1}` : null,
      }
    }
    const problem = expectProblem(
      await register('long', { entry: 's0', steps }),
      422,
      'invalid-graph-spec',
    )
    expect(problem.errors).toEqual([
      { path: '/body/spec/steps', message: expect.stringContaining(String(MAX_STEPS)) },
    ])
  })
})
