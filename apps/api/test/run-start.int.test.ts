import { archiveGraph, listRunEvents, withTenant } from '@weave/db'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { AuditPage, AuditVerification } from '../src/schemas/audit.js'
import { RunView } from '../src/schemas/runs.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL } from '../../../test/support/service-urls.js'
import { recordStatements } from '../../../test/support/statement-recorder.js'
import { randomTenant } from './support/database.js'
import { PRICING_SPEC, seedGraph } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
let token: string
const tenant = randomTenant()
// Every statement the API's pool runs, by text (BEGIN and COMMIT included).
const statements: string[] = []

beforeAll(async () => {
  h = await createHarness('api_run_start')
  token = await h.token(tenant, 'alice')
  recordStatements(h.database.pool, statements)
})
afterAll(async () => h.close())

const register = async (name: string, spec: unknown = PRICING_SPEC, as = token) =>
  expectJson(
    await h.call({ method: 'POST', url: '/v1/graphs', token: as, body: { name, spec } }),
    201,
  )
const start = (body: unknown, headers?: Record<string, string>, as = token) =>
  h.call({ method: 'POST', url: '/v1/runs', token: as, body, ...(headers ? { headers } : {}) })

/** The statements the API's pool ran during `fn`. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const before = statements.length
  await fn()
  return statements.slice(before)
}

/** Rows a start writes, counted in the tenant: runs, run events and audit events. */
async function written(): Promise<number[]> {
  const result = await withTenant(h.database, tenant, (tx) =>
    tx.db.execute<{ runs: number; events: number; audits: number; pending: number }>(
      sql`select (select count(*)::int from runs) as runs,
        (select count(*)::int from run_events) as events,
        (select count(*)::int from audit_events) as audits,
        (select count(*)::int from audit_pending) as pending`,
    ),
  )
  const row = result.rows[0]!
  return [row.runs, row.events, row.audits, row.pending]
}

/** A connection as the database's owner, for what no API request does (deleting a graph). */
async function asOwner<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const { rows } = await h.database.pool.query<{ name: string }>(
    'select current_database() as name',
  )
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${rows[0]!.name}`
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

const withAmountAtMost = (max: number) => ({
  ...PRICING_SPEC,
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number', maximum: max } },
  },
})

describe('POST /v1/runs in one statement and its audit chain call', () => {
  it('starts a run of a graph it has seen in one statement, with its event and audit event', async () => {
    await register('one')
    expectJson(await start({ graph: 'one', input: { amount: 1 } }), 202)
    let response!: Awaited<ReturnType<typeof start>>
    const sent = await statementsOf(async () => {
      response = await start({ graph: 'one', input: { amount: 2 } }, { 'x-request-id': 'req-one' })
    })
    const run = expectJson(response, 202, RunView)
    // The start, then the call chaining its audit event once it has committed.
    expect(sent).toHaveLength(2)
    expect(sent[0]).toMatch(/weave_start_run/)
    expect(sent[1]).toMatch(/weave_chain_audit/)
    expect(run).toMatchObject({ graph: 'one', version: 1, status: 'queued', createdBy: 'alice' })
    expect((await h.queues.runs.getJob(run.id))?.data).toEqual({ runId: run.id, tenant })
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, run.id))
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['run.queued', { graph: 'one', version: 1 }],
    ])
    const audit = expectJson(
      await h.call({ method: 'GET', url: `/v1/audit?targetId=${run.id}`, token }),
      200,
      AuditPage,
    ).items
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({
      action: 'run.started',
      actor: 'alice',
      target: { kind: 'run', id: run.id },
      requestId: 'req-one',
      details: { graph: 'one', version: 1 },
    })
  })

  it('uses one statement for a first Idempotency-Key, and replays or refuses its reuse', async () => {
    await register('keyed')
    expectJson(await start({ graph: 'keyed', input: { amount: 1 } }), 202)
    const key = { 'idempotency-key': 'k-keyed' }
    let response!: Awaited<ReturnType<typeof start>>
    const sent = await statementsOf(async () => {
      response = await start({ graph: 'keyed', input: { amount: 3 } }, key)
    })
    expect(sent).toHaveLength(2)
    const first = expectJson(response, 202, RunView)
    const again = await start({ graph: 'keyed', input: { amount: 3 } }, key)
    expect(expectJson(again, 200, RunView).id).toBe(first.id)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expectProblem(
      await start({ graph: 'keyed', input: { amount: 4 } }, key),
      409,
      'idempotency-conflict',
    )
    // The same with a concurrency key, whose replay is answered before the key's lock.
    const both = { 'idempotency-key': 'k-keyed-line' }
    const body = { graph: 'keyed', input: { amount: 5 }, concurrencyKey: 'line' }
    const lined = expectJson(await start(body, both), 202, RunView)
    expect(expectJson(await start(body, both), 200, RunView).id).toBe(lined.id)
    expectProblem(await start({ ...body, input: { amount: 6 } }, both), 409, 'idempotency-conflict')
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, first.id))
    expect(events).toHaveLength(1)
  })

  it('places a run in its concurrency key line: held, its position, in its event and audit event', async () => {
    await register('lined')
    const body = { graph: 'lined', input: { amount: 1 }, concurrencyKey: 'refunds' }
    const admitted = expectJson(await start(body), 202, RunView)
    let response!: Awaited<ReturnType<typeof start>>
    const sent = await statementsOf(async () => {
      response = await start(body)
    })
    const waiting = expectJson(response, 202, RunView)
    const third = expectJson(await start(body), 202, RunView)
    expect(sent).toHaveLength(2)
    expect([admitted.linePosition, waiting.linePosition, third.linePosition]).toEqual([null, 1, 2])
    expect(await h.queues.runs.getJob(admitted.id)).toBeTruthy()
    expect(await h.queues.runs.getJob(waiting.id)).toBeFalsy()
    const events = await withTenant(h.database, tenant, (tx) => listRunEvents(tx, waiting.id))
    const details = { graph: 'lined', version: 1, concurrencyKey: 'refunds', held: true }
    expect(events.map((e) => e.data)).toEqual([details])
    const audit = expectJson(
      await h.call({ method: 'GET', url: `/v1/audit?targetId=${waiting.id}`, token }),
      200,
      AuditPage,
    ).items
    expect(audit.map((e) => e.details)).toEqual([details])
    const first = await h.call({ method: 'GET', url: `/v1/audit?targetId=${admitted.id}`, token })
    expect(expectJson(first, 200, AuditPage).items[0]?.details).toMatchObject({ held: false })
    expect(
      expectJson(
        await h.call({ method: 'GET', url: '/v1/audit/verify', token }),
        200,
        AuditVerification,
      ).ok,
    ).toBe(true)
  })

  it('starts on the latest version when another was registered since it last looked', async () => {
    await register('moving')
    expect(
      expectJson(await start({ graph: 'moving', input: { amount: 1 } }), 202, RunView).version,
    ).toBe(1)
    await seedGraph(h.database, tenant, 'moving', withAmountAtMost(10))
    const latest = expectJson(await start({ graph: 'moving', input: { amount: 1 } }), 202, RunView)
    expect(latest.version).toBe(2)
    // Validated against version 2's spec, not the one it had seen.
    expectProblem(await start({ graph: 'moving', input: { amount: 50 } }), 400)
    const named = await start({ graph: 'moving', version: 1, input: { amount: 50 } })
    expect(expectJson(named, 202, RunView).version).toBe(1)
  })

  it('validates against the new spec of a graph deleted and registered again', async () => {
    await register('again')
    // Seen (and its spec cached) by a start refused before anything is written.
    expectProblem(await start({ graph: 'again', input: {} }), 400)
    await asOwner(async (client) => {
      await client.query('delete from graph_versions where tenant_id = $1 and graph_name = $2', [
        tenant,
        'again',
      ])
      await client.query('delete from graphs where tenant_id = $1 and name = $2', [tenant, 'again'])
    })
    await register('again', withAmountAtMost(100))
    const before = await written()
    // Valid for the spec seen before, not for the graph's version 1 now.
    expectProblem(await start({ graph: 'again', input: { amount: 500 } }), 400)
    expect(await written()).toEqual(before)
    const run = expectJson(await start({ graph: 'again', input: { amount: 5 } }), 202, RunView)
    expect(run.version).toBe(1)
  })

  it('refuses a graph archived since it last looked with 409, writing nothing', async () => {
    await register('closing')
    expectJson(await start({ graph: 'closing', input: { amount: 1 } }), 202)
    await withTenant(h.database, tenant, (tx) => archiveGraph(tx, 'closing'))
    const before = await written()
    expectProblem(await start({ graph: 'closing', input: { amount: 1 } }), 409, 'graph-archived')
    expect(await written()).toEqual(before)
  })

  it('refuses invalid input with 400 and writes nothing', async () => {
    await register('strict')
    expectJson(await start({ graph: 'strict', input: { amount: 1 } }), 202)
    const before = await written()
    const problem = expectProblem(await start({ graph: 'strict', input: { amount: 'x' } }), 400)
    expect(problem.errors?.map((e) => e.path)).toEqual(['/body/input/amount'])
    expectProblem(await start({ graph: 'strict', input: { amount: 1, __budget: 1 } }), 400)
    expect(await written()).toEqual(before)
  })

  it("neither finds nor uses another tenant's graph of the same name", async () => {
    await register('shared')
    expectJson(await start({ graph: 'shared', input: { amount: 500 } }), 202)
    const other = randomTenant()
    const otherToken = await h.token(other, 'bob')
    expectProblem(
      await start({ graph: 'shared', input: { amount: 1 } }, undefined, otherToken),
      404,
      'graph-not-found',
    )
    await register('shared', withAmountAtMost(10), otherToken)
    expectProblem(
      await start({ graph: 'shared', input: { amount: 500 } }, undefined, otherToken),
      400,
    )
    const theirs = expectJson(
      await start({ graph: 'shared', input: { amount: 5 } }, undefined, otherToken),
      202,
      RunView,
    )
    expect(theirs.createdBy).toBe('bob')
    expectJson(await start({ graph: 'shared', input: { amount: 500 } }), 202)
    // An idempotency key names a run of its own tenant only: the same key and body from another
    // tenant start that tenant's own run, not a replay of this one.
    const key = { 'idempotency-key': 'k-shared' }
    const ours = expectJson(
      await start({ graph: 'shared', input: { amount: 7 } }, key),
      202,
      RunView,
    )
    const again = await start({ graph: 'shared', input: { amount: 7 } }, key, otherToken)
    const mine = expectJson(again, 202, RunView)
    expect(mine.id).not.toBe(ours.id)
    expect(mine.createdBy).toBe('bob')
  })
})
