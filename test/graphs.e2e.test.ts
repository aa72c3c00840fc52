import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectJson, expectPage, expectProblem, isoTime } from './support/expect-http.js'
import { startWeave, type WeaveProcesses } from './support/weave-processes.js'

const SCOPES = 'graphs:read graphs:write runs:read runs:write'
const DIGEST = expect.stringMatching(/^[0-9a-f]{64}$/)

const REFUND_SPEC = {
  entry: 'classify',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' } },
  },
  steps: {
    classify: {
      kind: 'set',
      values: { risk: "amount > 100 ? 'high' : 'low'" },
      next: { branch: 'risk', routes: { high: 'review' }, default: 'finish' },
    },
    review: {
      kind: 'approval',
      title: 'Refund {{ amount }}?',
      next: { when: [{ if: "review.status = 'approved'", then: 'finish' }], else: null },
    },
    finish: {
      kind: 'parallel',
      branches: {
        note: { kind: 'set', values: { note: "'done'" } },
        doubled: { kind: 'handler', name: 'test.double' },
      },
    },
  },
}

/** The same spec with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  )
}

describe('graph registry over HTTP', () => {
  let weave: WeaveProcesses

  beforeAll(async () => {
    weave = await startWeave({ workers: 0 })
  })
  afterAll(async () => {
    await weave?.stop()
  })

  async function writer() {
    return weave.token(`t-${randomBytes(4).toString('hex')}`, 'author', SCOPES)
  }

  it('registers a spec as version 1 with its digest and a Location', async () => {
    const token = await writer()
    const res = await weave.call('POST', '/v1/graphs', {
      token,
      body: { name: 'refunds', spec: REFUND_SPEC, description: 'Refunds' },
    })
    const body = expectJson(res, 201)
    expect(body).toEqual({ name: 'refunds', version: 1, digest: DIGEST, createdAt: isoTime })
    expect(res.headers.get('location')).toBe('/v1/graphs/refunds/versions/1')
  })

  it('answers 200 with the same version when the spec is registered again', async () => {
    const token = await writer()
    const first = expectJson(
      await weave.call('POST', '/v1/graphs', {
        token,
        body: { name: 'refunds', spec: REFUND_SPEC },
      }),
      201,
    )
    const again = await weave.call('POST', '/v1/graphs', {
      token,
      body: { name: 'refunds', spec: REFUND_SPEC },
    })
    expect(expectJson(again, 200)).toEqual(first)

    // The digest is of the canonical JSON: key order does not make a new version.
    const reordered = await weave.call('POST', '/v1/graphs', {
      token,
      body: { name: 'refunds', spec: reversedKeys(REFUND_SPEC) },
    })
    expect(expectJson(reordered, 200)).toEqual(first)

    const graph = expectJson(await weave.call('GET', '/v1/graphs/refunds', { token }), 200)
    expect(graph.versions).toHaveLength(1)
  })

  it('makes a changed spec version 2, listed, readable and versioned', async () => {
    const token = await writer()
    const v1 = expectJson(
      await weave.call('POST', '/v1/graphs', {
        token,
        body: { name: 'refunds', spec: REFUND_SPEC, description: 'first' },
      }),
      201,
    )
    const changed = {
      ...REFUND_SPEC,
      steps: {
        ...REFUND_SPEC.steps,
        classify: {
          ...REFUND_SPEC.steps.classify,
          values: { risk: "amount > 500 ? 'high' : 'low'" },
        },
      },
    }
    const v2res = await weave.call('POST', '/v1/graphs', {
      token,
      body: { name: 'refunds', spec: changed, description: 'second' },
    })
    const v2 = expectJson(v2res, 201)
    expect(v2).toEqual({ name: 'refunds', version: 2, digest: DIGEST, createdAt: isoTime })
    expect(v2.digest).not.toBe(v1.digest)
    expect(v2res.headers.get('location')).toBe('/v1/graphs/refunds/versions/2')

    expectJson(
      await weave.call('POST', '/v1/graphs', { token, body: { name: 'other', spec: REFUND_SPEC } }),
      201,
    )
    const items = expectPage(await weave.call('GET', '/v1/graphs', { token }))
    expect(items.map((g) => g.name)).toEqual(['other', 'refunds'])
    expect(items.find((g) => g.name === 'refunds')).toEqual({
      name: 'refunds',
      latestVersion: 2,
      digest: v2.digest,
      description: 'second',
      archivedAt: null,
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    const page = expectJson(await weave.call('GET', '/v1/graphs?limit=1', { token }), 200)
    expect(page.items).toHaveLength(1)
    expect(page.nextCursor).toEqual(expect.any(String))
    const next = await weave.call(
      'GET',
      `/v1/graphs?limit=1&cursor=${encodeURIComponent(page.nextCursor)}`,
      { token },
    )
    expect(expectPage(next).map((g) => g.name)).toEqual(['refunds'])

    const graph = expectJson(await weave.call('GET', '/v1/graphs/refunds', { token }), 200)
    expect(graph).toMatchObject({
      name: 'refunds',
      archivedAt: null,
      createdAt: isoTime,
      latest: {
        name: 'refunds',
        version: 2,
        digest: v2.digest,
        description: 'second',
        createdBy: 'author',
        spec: { entry: 'classify' },
      },
    })
    expect(graph.latest.spec.steps.classify.values.risk).toBe("amount > 500 ? 'high' : 'low'")
    expect(graph.versions.map((v: { version: number }) => v.version)).toEqual([2, 1])
    expect(graph.versions[1]).toEqual({
      version: 1,
      digest: v1.digest,
      description: 'first',
      createdBy: 'author',
      createdAt: isoTime,
    })

    const one = expectJson(await weave.call('GET', '/v1/graphs/refunds/versions/1', { token }), 200)
    expect(one).toMatchObject({ name: 'refunds', version: 1, digest: v1.digest })
    expect(one.spec).toMatchObject(REFUND_SPEC)

    expectProblem(await weave.call('GET', '/v1/graphs/refunds/versions/3', { token }), 404)
    expectProblem(await weave.call('GET', '/v1/graphs/refunds/versions/abc', { token }), 400)
    expectProblem(await weave.call('GET', '/v1/graphs/nothing', { token }), 404)
    expectProblem(await weave.call('GET', '/v1/graphs/nothing/versions/1', { token }), 404)
  })

  it('draws the topology as JSON and as a Mermaid flowchart', async () => {
    const token = await writer()
    await weave.call('POST', '/v1/graphs', { token, body: { name: 'refunds', spec: REFUND_SPEC } })

    const res = await weave.call('GET', '/v1/graphs/refunds/topology', { token })
    const topology = expectJson(res, 200)
    expect(topology.nodes).toEqual([
      { id: 'classify', kind: 'set' },
      { id: 'review', kind: 'approval' },
      {
        id: 'finish',
        kind: 'parallel',
        branches: expect.arrayContaining([
          { id: 'note', kind: 'set' },
          { id: 'doubled', kind: 'handler' },
        ]),
      },
    ])
    expect(topology.edges).toHaveLength(5)
    expect(topology.edges).toEqual(
      expect.arrayContaining([
        { from: 'classify', to: 'review', label: 'high' },
        { from: 'classify', to: 'finish', label: 'default' },
        { from: 'review', to: 'finish', label: "review.status = 'approved'" },
        { from: 'review', to: null, label: 'else' },
        { from: 'finish', to: null },
      ]),
    )
    const byVersion = await weave.call('GET', '/v1/graphs/refunds/topology?version=1', { token })
    expect(expectJson(byVersion, 200)).toEqual(topology)
    expectProblem(await weave.call('GET', '/v1/graphs/refunds/topology?version=9', { token }), 404)
    expectProblem(await weave.call('GET', '/v1/graphs/missing/topology', { token }), 404)

    const mermaid = await weave.call('GET', '/v1/graphs/refunds/topology?format=mermaid', {
      token,
    })
    expect(mermaid.status).toBe(200)
    expect(mermaid.headers.get('content-type')).toMatch(/^text\/plain\b/)
    const text = mermaid.body as string
    expect(text.split('\n')[0]).toBe('flowchart TD')
    for (const label of ['classify (set)', 'review (approval)', 'finish (parallel']) {
      expect(text).toContain(label)
    }
    expect(text).toContain('|"high"|')
    // One arrow per edge plus the one from the start node.
    expect(text.match(/-->/g)).toHaveLength(6)
  })

  it('refuses an invalid spec with 422 naming every problem by its JSON path', async () => {
    const token = await writer()
    const res = await weave.call('POST', '/v1/graphs', {
      token,
      body: {
        name: 'broken',
        spec: {
          entry: 'a',
          steps: {
            a: { kind: 'set', values: { x: '1 +' }, next: 'nowhere' },
            b: { kind: 'teleport' },
            c: { kind: 'wait', duration: 'soon' },
            d: { kind: 'subgraph', graph: 'ghost' },
          },
        },
      },
    })
    const problem = expectProblem(res, 422)
    const paths = problem.errors?.map((e) => e.path)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/body/spec/steps/a/values/x',
        '/body/spec/steps/a/next',
        '/body/spec/steps/b/kind',
        '/body/spec/steps/c/duration',
        '/body/spec/steps/d/graph',
        '/body/spec/steps/b',
      ]),
    )
    for (const error of problem.errors ?? []) expect(error.message).toEqual(expect.any(String))
    expect(problem.errors?.find((e) => e.path === '/body/spec/steps/a/next')?.message).toMatch(
      /nowhere/,
    )
    expect(problem.errors?.find((e) => e.path === '/body/spec/steps/d/graph')?.message).toMatch(
      /ghost/,
    )

    const missingEntry = await weave.call('POST', '/v1/graphs', {
      token,
      body: {
        name: 'broken',
        spec: { entry: 'nope', steps: { a: { kind: 'fail', message: 'x' } } },
      },
    })
    expect(expectProblem(missingEntry, 422).errors).toEqual(
      expect.arrayContaining([
        { path: '/body/spec/entry', message: expect.stringMatching(/nope/) },
      ]),
    )

    // Nothing was registered.
    expectProblem(await weave.call('GET', '/v1/graphs/broken', { token }), 404)
  })

  it('refuses a malformed request body with 400 and a bad name', async () => {
    const token = await writer()
    const badName = await weave.call('POST', '/v1/graphs', {
      token,
      body: { name: 'Not A Name', spec: REFUND_SPEC },
    })
    expect(expectProblem(badName, 400).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/body/name' })]),
    )
    const unknownField = await weave.call('POST', '/v1/graphs', {
      token,
      body: { name: 'ok', spec: REFUND_SPEC, tenant: 'someone-else' },
    })
    expectProblem(unknownField, 400)
  })

  it('archives a graph: no new runs (409), hidden from the list unless asked for', async () => {
    const token = await writer()
    await weave.call('POST', '/v1/graphs', { token, body: { name: 'refunds', spec: REFUND_SPEC } })
    const started = await weave.call('POST', '/v1/runs', {
      token,
      body: { graph: 'refunds', input: { amount: 5 } },
    })
    expectJson(started, 202)

    const archived = expectJson(await weave.call('DELETE', '/v1/graphs/refunds', { token }), 200)
    expect(archived).toMatchObject({ name: 'refunds', archivedAt: isoTime })

    const refused = await weave.call('POST', '/v1/runs', {
      token,
      body: { graph: 'refunds', input: { amount: 5 } },
    })
    expectProblem(refused, 409)
    const byVersion = await weave.call('POST', '/v1/runs', {
      token,
      body: { graph: 'refunds', version: 1, input: { amount: 5 } },
    })
    expectProblem(byVersion, 409)

    expect(expectPage(await weave.call('GET', '/v1/graphs', { token }))).toEqual([])
    const all = expectPage(await weave.call('GET', '/v1/graphs?includeArchived=true', { token }))
    expect(all).toEqual([expect.objectContaining({ name: 'refunds', archivedAt: isoTime })])

    // Still readable, and the run started before archiving is still there.
    const graph = expectJson(await weave.call('GET', '/v1/graphs/refunds', { token }), 200)
    expect(graph.archivedAt).toEqual(isoTime)
    const run = expectJson(await weave.call('GET', `/v1/runs/${started.body.id}`, { token }), 200)
    expect(run).toMatchObject({ id: started.body.id, graph: 'refunds', version: 1 })

    expectProblem(await weave.call('DELETE', '/v1/graphs/missing', { token }), 404)
  })
})
