import {
  GraphPage,
  GraphVersionView,
  GraphView,
  RegisteredGraph,
  TopologyView,
} from '../src/schemas/graphs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomTenant } from './support/database.js'
import { PRICING_SPEC } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_graphs')
  token = await h.token(tenant, 'alice')
})
afterAll(async () => h.close())

const register = (name: string, spec: unknown, description?: string) =>
  h.call({
    method: 'POST',
    url: '/v1/graphs',
    token,
    body: { name, spec, ...(description === undefined ? {} : { description }) },
  })

describe('POST /v1/graphs', () => {
  it('registers version 1 with 201, a Location and the digest', async () => {
    const response = await register('pricing', PRICING_SPEC, 'Prices things')
    const body = expectJson(response, 201)
    expect(body).toEqual({
      name: 'pricing',
      version: 1,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      createdAt: expect.stringMatching(/Z$/),
    })
    expect(response.headers.location).toBe('/v1/graphs/pricing/versions/1')
  })

  it('answers 200 with the latest version when the spec has the same digest', async () => {
    const first = expectJson(await register('same', PRICING_SPEC), 201)
    // Written with the default made explicit and keys in another order: the same canonical spec.
    const reordered = {
      steps: PRICING_SPEC.steps,
      entry: 'price',
      history: -1,
      input: PRICING_SPEC.input,
    }
    const again = expectJson(await register('same', reordered), 200)
    expect(again).toEqual(first)
  })

  it('registers a changed spec as the next version', async () => {
    expectJson(await register('bump', PRICING_SPEC), 201)
    const changed = { ...PRICING_SPEC, limits: { maxIterations: 10 } }
    const second = expectJson(await register('bump', changed), 201, RegisteredGraph)
    expect(second.version).toBe(2)
  })

  it('ignores the `$schema` an editor reads, in the body and in the spec', async () => {
    const first = expectJson(await register('with-schema', PRICING_SPEC), 201)
    const response = await h.call({
      method: 'POST',
      url: '/v1/graphs',
      token,
      body: {
        $schema: 'http://127.0.0.1:3000/schemas/graph-registration.json',
        name: 'with-schema',
        spec: { $schema: 'http://127.0.0.1:3000/schemas/graph-spec.json', ...PRICING_SPEC },
      },
    })
    // The same digest: `$schema` is no part of the graph, so no new version.
    expect(expectJson(response, 200)).toEqual(first)
    const stored = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs/with-schema/versions/1', token }),
      200,
    )
    expect(stored.spec).not.toHaveProperty('$schema')
  })

  it('answers 422 listing every problem with its JSON path under /body/spec', async () => {
    const spec = {
      entry: 'missing',
      steps: {
        a: { kind: 'set', values: { x: '1 +' }, next: 'nowhere' },
        b: { kind: 'teleport' },
      },
    }
    const problem = expectProblem(await register('broken', spec), 422, 'invalid-graph-spec')
    const paths = (problem.errors ?? []).map((e) => e.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/body/spec/entry',
        '/body/spec/steps/a/next',
        '/body/spec/steps/b/kind',
      ]),
    )
    expect(paths.some((path) => path.startsWith('/body/spec/steps/a/values'))).toBe(true)
    expect(paths.every((path) => path.startsWith('/body/spec'))).toBe(true)
    const list = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs?limit=200', token }),
      200,
      GraphPage,
    )
    expect(list.items.map((g) => g.name)).not.toContain('broken')
  })

  it('refuses a bad name, an unknown field and a subgraph naming an unknown graph', async () => {
    const badName = expectProblem(
      await register('Bad Name', PRICING_SPEC),
      400,
      'validation-failed',
    )
    expect(badName.errors?.[0]?.path).toBe('/body/name')
    const unknown = await h.call({
      method: 'POST',
      url: '/v1/graphs',
      token,
      body: { name: 'x', spec: PRICING_SPEC, tenant: 'other' },
    })
    expect(expectProblem(unknown, 400).errors?.[0]?.path).toBe('/body/tenant')
    const sub = { entry: 'a', steps: { a: { kind: 'subgraph', graph: 'ghost' } } }
    const problem = expectProblem(await register('parent', sub), 422)
    expect(problem.errors).toEqual([
      { path: '/body/spec/steps/a/graph', message: expect.stringContaining('ghost') },
    ])
  })
})

describe('reading graphs', () => {
  beforeAll(async () => {
    expectJson(await register('reader', PRICING_SPEC, 'v1'), 201)
    expectJson(await register('reader', { ...PRICING_SPEC, history: 5 }, 'v2'), 201)
  })

  it('lists graphs newest first with cursors', async () => {
    const first = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs?limit=1', token }),
      200,
      GraphPage,
    )
    expect(first.items).toHaveLength(1)
    expect(first.items[0]).toMatchObject({ name: 'reader', latestVersion: 2 })
    const next = expectJson(
      await h.call({ method: 'GET', url: `/v1/graphs?limit=1&cursor=${first.nextCursor}`, token }),
      200,
      GraphPage,
    )
    expect(next.items[0]?.name).not.toBe('reader')
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/graphs?cursor=nonsense', token }),
      400,
      'invalid-cursor',
    )
  })

  it('gets a graph with its latest version and version list', async () => {
    const graph = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs/reader', token }),
      200,
      GraphView,
    )
    expect(graph.name).toBe('reader')
    expect(graph.archivedAt).toBeNull()
    expect(graph.latest).toMatchObject({ version: 2, description: 'v2', createdBy: 'alice' })
    expect(graph.latest.spec.history).toBe(5)
    expect(graph.versions.map((v: { version: number }) => v.version)).toEqual([2, 1])
    expect(graph.versions[0]).not.toHaveProperty('spec')
  })

  it('gets one version with its spec as stored, 404 for a missing one, 400 for a non-number', async () => {
    const version = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs/reader/versions/1', token }),
      200,
      GraphVersionView,
    )
    expect(version).toMatchObject({ name: 'reader', version: 1, description: 'v1' })
    expect(version.spec).toEqual({ ...PRICING_SPEC, history: -1 })
    for (const v of ['3', '2147483648', '9999999999']) {
      const missing = await h.call({ method: 'GET', url: `/v1/graphs/reader/versions/${v}`, token })
      expectProblem(missing, 404, 'graph-version-not-found')
    }
    for (const v of ['0', 'x', '-1', '1.0', '01', '99999999999']) {
      const invalid = await h.call({ method: 'GET', url: `/v1/graphs/reader/versions/${v}`, token })
      const problem = expectProblem(invalid, 400, 'validation-failed')
      expect(problem.errors).toEqual([{ path: '/params/version', message: expect.any(String) }])
    }
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/graphs/nope', token }),
      404,
      'graph-not-found',
    )
  })

  it('answers the topology as JSON and as a Mermaid flowchart', async () => {
    const topology = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs/reader/topology?version=1', token }),
      200,
      TopologyView,
    )
    expect(topology.nodes).toEqual([
      { id: 'price', kind: 'set' },
      { id: 'label', kind: 'set' },
      { id: 'review', kind: 'approval' },
    ])
    expect(topology.edges).toEqual([
      { from: 'price', to: 'label' },
      { from: 'label', to: 'review', label: 'big' },
      { from: 'label', to: null, label: 'default' },
      { from: 'review', to: null },
    ])
    const mermaid = await h.call({
      method: 'GET',
      url: '/v1/graphs/reader/topology?format=mermaid',
      token,
    })
    expect(mermaid.statusCode).toBe(200)
    expect(mermaid.headers['content-type']).toMatch(/^text\/plain/)
    expect(mermaid.body).toBe(
      [
        'flowchart TD',
        '  start(("start"))',
        '  s0["price (set)"]',
        '  s1["label (set)"]',
        '  s2["review (approval)"]',
        '  done(("end"))',
        '  start --> s0',
        '  s0 --> s1',
        '  s1 -->|"big"| s2',
        '  s1 -->|"default"| done',
        '  s2 --> done',
        '',
      ].join('\n'),
    )
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/graphs/reader/topology?version=9', token }),
      404,
      'graph-version-not-found',
    )
    expectProblem(
      await h.call({ method: 'GET', url: '/v1/graphs/reader/topology?format=svg', token }),
      400,
    )
  })
})

describe('DELETE /v1/graphs/{name}', () => {
  it('archives the graph: it leaves the list, refuses new runs, and re-registering restores it', async () => {
    expectJson(await register('old', PRICING_SPEC), 201)
    const archived = expectJson(
      await h.call({ method: 'DELETE', url: '/v1/graphs/old', token }),
      200,
      GraphView,
    )
    expect(archived.name).toBe('old')
    expect(archived.archivedAt).toEqual(expect.stringMatching(/Z$/))
    const again = expectJson(
      await h.call({ method: 'DELETE', url: '/v1/graphs/old', token }),
      200,
      GraphView,
    )
    expect(again.archivedAt).toBe(archived.archivedAt)
    const list = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs?limit=200', token }),
      200,
      GraphPage,
    )
    expect(list.items.map((g) => g.name)).not.toContain('old')
    const withArchived = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs?limit=200&includeArchived=true', token }),
      200,
      GraphPage,
    )
    expect(withArchived.items.map((g) => g.name)).toContain('old')
    const run = await h.call({
      method: 'POST',
      url: '/v1/runs',
      token,
      body: { graph: 'old', input: { amount: 1 } },
    })
    expectProblem(run, 409, 'graph-archived')
    expectJson(await register('old', PRICING_SPEC), 200)
    const restored = expectJson(
      await h.call({ method: 'GET', url: '/v1/graphs/old', token }),
      200,
      GraphView,
    )
    expect(restored.archivedAt).toBeNull()
  })

  it('answers 404 for an unknown graph', async () => {
    expectProblem(
      await h.call({ method: 'DELETE', url: '/v1/graphs/ghost', token }),
      404,
      'graph-not-found',
    )
  })
})
