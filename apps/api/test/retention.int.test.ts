import { applyRetention, createRun, listAudit, withTenant } from '@weave/db'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RetentionPolicyView } from '../src/schemas/retention.js'
import { randomTenant } from './support/database.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
const tenant = randomTenant()
const other = randomTenant()
let manager: string
let reader: string
let outsider: string

beforeAll(async () => {
  h = await createHarness('api_retention')
  manager = await h.token(tenant, 'ops', ['retention:manage', 'runs:read'])
  reader = await h.token(tenant, 'bob', ['runs:read'])
  outsider = await h.token(other, 'mallory', ['retention:manage', 'runs:read'])
})
afterAll(async () => h?.close())

const get = (token: string) => h.call({ method: 'GET', url: '/v1/retention', token })
const put = (token: string, body: unknown) =>
  h.call({ method: 'PUT', url: '/v1/retention', token, body })

describe('/v1/retention', () => {
  it('keeps everything for a tenant that never set a policy', async () => {
    expect(expectJson(await get(reader), 200, RetentionPolicyView)).toEqual({
      checkpoints: 'all',
      runDays: null,
      updatedBy: null,
      updatedAt: null,
    })
  })

  it('sets the policy, answers it back, and records the change in the audit log', async () => {
    const set = expectJson(
      await put(manager, { checkpoints: { last: 5 }, runDays: 30 }),
      200,
      RetentionPolicyView,
    )
    expect(set).toMatchObject({ checkpoints: { last: 5 }, runDays: 30, updatedBy: 'ops' })
    expect(expectJson(await get(reader), 200, RetentionPolicyView)).toEqual(set)

    const again = expectJson(
      await put(manager, { checkpoints: 'none', runDays: null }),
      200,
      RetentionPolicyView,
    )
    expect(again).toMatchObject({ checkpoints: 'none', runDays: null })
    const audit = await withTenant(h.database, tenant, async (tx) =>
      (await listAudit(tx, { action: 'retention.updated' })).items.map((e) => e.details),
    )
    expect(audit).toEqual([
      { checkpoints: 'none', runDays: null, before: { checkpoints: { last: 5 }, runDays: 30 } },
      { checkpoints: { last: 5 }, runDays: 30, before: null },
    ])
  })

  it('keeps one tenant’s policy from another', async () => {
    expect(expectJson(await get(outsider), 200, RetentionPolicyView)).toMatchObject({
      checkpoints: 'all',
      updatedBy: null,
    })
  })

  it('refuses a change without retention:manage', async () => {
    expectProblem(await put(reader, { checkpoints: 'all', runDays: null }), 403)
    expectProblem(await h.call({ method: 'GET', url: '/v1/retention' }), 401)
  })

  it.each([
    [{ checkpoints: { last: 0 }, runDays: null }, '/body/checkpoints'],
    [{ checkpoints: 'some', runDays: null }, '/body/checkpoints'],
    [{ checkpoints: 'all', runDays: 0 }, '/body/runDays'],
    [{ checkpoints: 'all' }, '/body/runDays'],
    [{ checkpoints: 'all', runDays: 3, tenant: other }, '/body'],
  ])('refuses the invalid policy %j naming what is wrong', async (body, path) => {
    const problem = expectProblem(await put(manager, body), 400)
    expect(problem.errors?.map((e) => e.path).some((p) => p.startsWith(path))).toBe(true)
  })
})

describe('checkpoints a retention policy removed', () => {
  const spec = {
    entry: 'a',
    steps: { a: { kind: 'set', values: { n: '1' }, next: 'b' }, b: { kind: 'set', values: {} } },
    retention: { checkpoints: 'none' },
  }

  /** A completed run of `forgetful` with checkpoints 1 and 2, as the kernel writes them. */
  async function completedRun(): Promise<string> {
    const token = await h.token(tenant, 'author', ['graphs:write'])
    const registered = await h.call({
      method: 'POST',
      url: '/v1/graphs',
      token,
      body: { name: 'forgetful', spec },
    })
    expect([200, 201]).toContain(registered.statusCode)
    return withTenant(h.database, tenant, async (tx) => {
      const { run } = await createRun(tx, {
        graphName: 'forgetful',
        graphVersion: 1,
        input: {},
        createdBy: 'starter',
      })
      // The kernel's checkpoint envelope, version 1 (docs/kernel.md, Checkpoints).
      const envelope = (seq: number, lastStep: string) =>
        JSON.stringify({
          schema_version: 1,
          run_id: run.id,
          graph: 'forgetful',
          seq,
          last_step: lastStep,
          status: 'step_done',
          state: { n: 1 },
          saved_at: new Date().toISOString(),
        })
      for (const [key, value] of [
        [`${run.id}/000000000001`, envelope(1, 'a')],
        [`${run.id}/000000000002`, envelope(2, 'b')],
        [run.id, envelope(2, 'b')],
      ]) {
        await tx.db.execute(
          sql`insert into weave_kv (tenant_id, ns, key, value)
            values (${tenant}, '0:checkpoint:forgetful', ${key}, ${value})`,
        )
      }
      await tx.db.execute(
        sql`update runs set status = 'completed', finished_at = now(), checkpoint_seq = 2
          where id = ${run.id}::uuid`,
      )
      return run.id
    })
  }

  it('answers 404 naming the retention policy, while the run’s final state stays readable', async () => {
    const id = await completedRun()
    const runner = await h.token(tenant, 'starter', ['runs:read', 'runs:write'])
    const before = await h.call({ method: 'GET', url: `/v1/runs/${id}/history/1`, token: runner })
    expect(before.statusCode, before.body).toBe(200)

    await applyRetention(h.database, { actor: 'system:retention' })

    for (const response of [
      await h.call({ method: 'GET', url: `/v1/runs/${id}/history/1`, token: runner }),
      await h.call({ method: 'POST', url: `/v1/runs/${id}/fork`, token: runner, body: { seq: 1 } }),
    ]) {
      const problem = expectProblem(response, 404)
      expect(problem.detail).toMatch(/removed by its retention policy/)
    }
    const unknown = await h.call({ method: 'GET', url: `/v1/runs/${id}/history/9`, token: runner })
    expect(expectProblem(unknown, 404).detail).toBe(`Run ${id} has no checkpoint 9.`)
    const history = await h.call({ method: 'GET', url: `/v1/runs/${id}/history`, token: runner })
    expect(expectJson(history, 200)).toEqual({ items: [] })
    const run = await h.call({ method: 'GET', url: `/v1/runs/${id}`, token: runner })
    expect(expectJson(run, 200)).toMatchObject({ status: 'completed', state: { n: 1 } })
  })
})
