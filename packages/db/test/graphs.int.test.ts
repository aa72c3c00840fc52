import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  archiveGraph,
  getGraph,
  getGraphVersion,
  getLatestGraphVersion,
  hashJson,
  listGraphVersions,
  listGraphs,
  registerGraphVersion,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_graphs')
})

afterAll(async () => {
  await t?.drop()
})

const spec = (n: number) => ({ entry: 'a', steps: { a: { kind: 'set', values: { n: `${n}` } } } })

function register(tenant: string, name: string, s: unknown, description?: string) {
  return withTenant(t.app, tenant, (tx) =>
    registerGraphVersion(tx, { name, spec: s, createdBy: 'author', description }),
  )
}

describe('registerGraphVersion', () => {
  it('numbers changed specs 1, 2 and returns the latest for an equal digest', async () => {
    const tenant = randomTenant()
    const v1 = await register(tenant, 'refund', spec(1), 'first')
    const v2 = await register(tenant, 'refund', spec(2))
    const same = await register(tenant, 'refund', { steps: spec(2).steps, entry: 'a' })
    expect([v1.version, v1.created]).toEqual([1, true])
    expect([v2.version, v2.created]).toEqual([2, true])
    expect(same).toEqual({ ...v2, created: false })
    expect(v1.digest).toBe(hashJson(spec(1)))
    const oldAgain = await register(tenant, 'refund', spec(1))
    expect([oldAgain.version, oldAgain.created]).toEqual([3, true])
  })

  it('gives concurrent registrations of one spec one version', async () => {
    const tenant = randomTenant()
    const results = await Promise.all(
      Array.from({ length: 8 }, () => register(tenant, 'race', spec(7))),
    )
    expect(new Set(results.map((r) => r.version))).toEqual(new Set([1]))
    expect(results.filter((r) => r.created)).toHaveLength(1)
  })

  it('keeps graph names per tenant', async () => {
    const a = await register(randomTenant(), 'shared', spec(1))
    const b = await register(randomTenant(), 'shared', spec(2))
    expect([a.version, b.version]).toEqual([1, 1])
  })
})

describe('reading graphs', () => {
  it('gets the latest version, one version, and the version list', async () => {
    const tenant = randomTenant()
    await register(tenant, 'g', spec(1), 'one')
    await register(tenant, 'g', spec(2), 'two')
    await withTenant(t.app, tenant, async (tx) => {
      expect((await getLatestGraphVersion(tx, 'g'))?.spec).toEqual(spec(2))
      expect((await getGraphVersion(tx, 'g', 1))?.description).toBe('one')
      expect(await getGraphVersion(tx, 'g', 3)).toBeNull()
      expect(await getGraphVersion(tx, 'g', 1.5)).toBeNull()
      const versions = await listGraphVersions(tx, 'g')
      expect(versions.map((v) => v.version)).toEqual([2, 1])
      expect(versions[0]).not.toHaveProperty('spec')
      expect(await getLatestGraphVersion(tx, 'missing')).toBeNull()
      expect(await getGraph(tx, 'missing')).toBeNull()
    })
  })

  it('lists graphs with their latest version, pages through them, hides archived ones', async () => {
    const tenant = randomTenant()
    for (const name of ['a', 'b', 'c']) await register(tenant, name, spec(1))
    await register(tenant, 'b', spec(2), 'b2')
    await withTenant(t.app, tenant, async (tx) => {
      const first = await listGraphs(tx, { limit: 2 })
      const second = await listGraphs(tx, { limit: 2, cursor: first.nextCursor })
      const all = [...first.items, ...second.items]
      expect(all.map((g) => g.name).sort()).toEqual(['a', 'b', 'c'])
      expect(second.nextCursor).toBeNull()
      expect(all.find((g) => g.name === 'b')).toMatchObject({ latestVersion: 2, description: 'b2' })
      expect((await archiveGraph(tx, 'a'))?.archivedAt).toBeInstanceOf(Date)
      const active = await listGraphs(tx)
      expect(active.items.map((g) => g.name).sort()).toEqual(['b', 'c'])
      const everything = await listGraphs(tx, { includeArchived: true })
      expect(everything.items).toHaveLength(3)
    })
  })
})

describe('archiveGraph', () => {
  it('keeps the first archive time and returns null for an unknown graph', async () => {
    const tenant = randomTenant()
    await register(tenant, 'g', spec(1))
    await withTenant(t.app, tenant, async (tx) => {
      const first = await archiveGraph(tx, 'g')
      const again = await archiveGraph(tx, 'g')
      expect(again?.archivedAt).toEqual(first?.archivedAt)
      expect(await archiveGraph(tx, 'missing')).toBeNull()
    })
  })

  it('is undone by registering the graph again', async () => {
    const tenant = randomTenant()
    await register(tenant, 'g', spec(1))
    await withTenant(t.app, tenant, (tx) => archiveGraph(tx, 'g'))
    const again = await register(tenant, 'g', spec(1))
    expect(again.created).toBe(false)
    const graph = await withTenant(t.app, tenant, (tx) => getGraph(tx, 'g'))
    expect(graph?.archivedAt).toBeNull()
  })
})
