import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CreateRunInput,
  type TenantTx,
  createRun,
  getRun,
  hashJson,
  listRuns,
  registerGraphVersion,
  requestRunCancel,
  transitionRun,
  claimRun,
  takeOverRunLease,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, pgErrorOf, randomTenant } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_runs')
})

afterAll(async () => {
  await t?.drop()
})

async function register(tx: TenantTx, name = 'g'): Promise<number> {
  const v = await registerGraphVersion(tx, { name, spec: { entry: 'a' }, createdBy: 'author' })
  return v.version
}

function start(tenant: string, input: Partial<CreateRunInput> = {}) {
  return withTenant(t.app, tenant, async (tx) =>
    createRun(tx, {
      graphName: 'g',
      graphVersion: await register(tx),
      input: { amount: 1 },
      createdBy: 'starter',
      ...input,
    }),
  )
}

describe('createRun', () => {
  it('creates a queued run', async () => {
    const { run, created } = await start(randomTenant())
    expect(created).toBe(true)
    expect(run).toMatchObject({
      status: 'queued',
      steps: 0,
      cancelRequested: false,
      input: { amount: 1 },
    })
  })

  it('returns the original run for the same idempotency key and body', async () => {
    const tenant = randomTenant()
    const body = { graph: 'g', input: { amount: 1 } }
    const first = await start(tenant, { idempotencyKey: 'k1', requestHash: hashJson(body) })
    const again = await start(tenant, { idempotencyKey: 'k1', requestHash: hashJson(body) })
    expect(again).toEqual({ run: first.run, created: false })
  })

  it('refuses the same idempotency key with a different body', async () => {
    const tenant = randomTenant()
    const first = await start(tenant, { idempotencyKey: 'k1', requestHash: 'a' })
    await expect(start(tenant, { idempotencyKey: 'k1', requestHash: 'b' })).rejects.toMatchObject({
      code: 'idempotency-conflict',
      name: 'IdempotencyConflictError',
      resourceId: first.run.id,
    })
  })

  it('creates one run for concurrent requests with one key', async () => {
    const tenant = randomTenant()
    await start(tenant)
    const results = await Promise.all(
      Array.from({ length: 10 }, () => start(tenant, { idempotencyKey: 'k', requestHash: 'h' })),
    )
    expect(new Set(results.map((r) => r.run.id)).size).toBe(1)
    expect(results.filter((r) => r.created)).toHaveLength(1)
  })

  it('scopes idempotency keys per tenant', async () => {
    const a = await start(randomTenant(), { idempotencyKey: 'same', requestHash: 'a' })
    const b = await start(randomTenant(), { idempotencyKey: 'same', requestHash: 'b' })
    expect(b.created).toBe(true)
    expect(b.run.id).not.toBe(a.run.id)
  })

  it('releases a key older than its time to live', async () => {
    const tenant = randomTenant()
    const first = await start(tenant, { idempotencyKey: 'old', requestHash: 'a' })
    const fresh = await start(tenant, {
      idempotencyKey: 'old',
      requestHash: 'b',
      idempotencyTtlMs: 0,
    })
    expect(fresh.created).toBe(true)
    expect(fresh.run.id).not.toBe(first.run.id)
    const released = await withTenant(t.app, tenant, (tx) => getRun(tx, first.run.id))
    expect(released?.idempotencyKey).toBeNull()
  })

  it('fails for a graph version that does not exist', async () => {
    const error = await pgErrorOf(start(randomTenant(), { graphVersion: 99 }))
    expect(error.code).toBe('23503')
  })
})

describe('transitionRun', () => {
  it('moves a run forward and records the patch', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    await withTenant(t.app, tenant, async (tx) => {
      const running = await transitionRun(tx, run.id, ['queued'], 'running')
      expect(running?.status).toBe('running')
      expect(running?.finishedAt).toBeNull()
      const waiting = await transitionRun(tx, run.id, ['running'], 'waiting', {
        addSteps: 2,
        lastStep: 'review',
        stopReason: 'yielded',
        waitingOn: {
          kind: 'input',
          step: 'review',
          atSeq: 2,
          prompt: null,
          schema: null,
          saveAs: null,
        },
      })
      expect(waiting).toMatchObject({ steps: 2, waitingOn: { kind: 'input', step: 'review' } })
      const resumed = await transitionRun(tx, run.id, ['waiting'], 'running')
      expect(resumed?.waitingOn).toBeNull()
      const done = await transitionRun(tx, run.id, ['running'], 'completed', {
        addSteps: 1,
        stopReason: 'completed',
      })
      expect(done).toMatchObject({ status: 'completed', steps: 3, finishedAt: expect.any(Date) })
    })
  })

  it('refuses to move a run backwards or from an unexpected status', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    await withTenant(t.app, tenant, async (tx) => {
      await transitionRun(tx, run.id, ['queued'], 'running')
      expect(await transitionRun(tx, run.id, ['queued'], 'running')).toBeNull()
      await transitionRun(tx, run.id, ['running'], 'completed')
      expect(await transitionRun(tx, run.id, ['queued', 'running'], 'running')).toBeNull()
      expect(await transitionRun(tx, run.id, ['running'], 'failed')).toBeNull()
      expect((await getRun(tx, run.id))?.status).toBe('completed')
    })
  })

  it('lets exactly one of two racing claims win', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    const claims = await Promise.all(
      [1, 2].map(() =>
        withTenant(t.app, tenant, (tx) => transitionRun(tx, run.id, ['queued'], 'running')),
      ),
    )
    expect(claims.filter((c) => c !== null)).toHaveLength(1)
  })

  it('returns null for an unknown or malformed id', async () => {
    await withTenant(t.app, randomTenant(), async (tx) => {
      expect(await transitionRun(tx, crypto.randomUUID(), ['queued'], 'running')).toBeNull()
      expect(await transitionRun(tx, 'nope', ['queued'], 'running')).toBeNull()
      expect(await getRun(tx, 'nope')).toBeNull()
    })
  })
})

describe('requestRunCancel', () => {
  it('cancels a queued run at once', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    const result = await withTenant(t.app, tenant, (tx) => requestRunCancel(tx, run.id))
    expect(result).toMatchObject({
      cancelledNow: true,
      run: { status: 'cancelled', cancelRequested: true },
    })
  })

  it('only flags a running run, which stops at its next step boundary', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    await withTenant(t.app, tenant, (tx) => transitionRun(tx, run.id, ['queued'], 'running'))
    const result = await withTenant(t.app, tenant, (tx) => requestRunCancel(tx, run.id))
    expect(result).toMatchObject({
      cancelledNow: false,
      run: { status: 'running', cancelRequested: true },
    })
  })

  it('leaves a finished run as it is, and finds no unknown run', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    await withTenant(t.app, tenant, async (tx) => {
      await transitionRun(tx, run.id, ['queued'], 'running')
      await transitionRun(tx, run.id, ['running'], 'completed')
      const result = await requestRunCancel(tx, run.id)
      expect(result).toMatchObject({
        cancelledNow: false,
        run: { status: 'completed', cancelRequested: false },
      })
      expect(await requestRunCancel(tx, crypto.randomUUID())).toBeNull()
    })
  })
})

describe('listRuns', () => {
  it('lists newest first with status and graph filters and a cursor', async () => {
    const tenant = randomTenant()
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const { run } = await withTenant(t.app, tenant, async (tx) =>
        createRun(tx, {
          graphName: i % 2 ? 'odd' : 'even',
          graphVersion: await register(tx, i % 2 ? 'odd' : 'even'),
          input: {},
          createdBy: 'u',
        }),
      )
      ids.push(run.id)
    }
    await withTenant(t.app, tenant, async (tx) => {
      await transitionRun(tx, ids[0] as string, ['queued'], 'running')
      const pages: string[] = []
      let cursor: string | null = null
      do {
        const page = await listRuns(tx, { limit: 2, cursor })
        pages.push(...page.items.map((r) => r.id))
        cursor = page.nextCursor
      } while (cursor)
      expect(new Set(pages)).toEqual(new Set(ids))
      expect(pages).toHaveLength(5)
      const running = await listRuns(tx, { status: 'running' })
      expect(running.items.map((r) => r.id)).toEqual([ids[0]])
      const queued = await listRuns(tx, { status: ['queued'], graph: 'odd' })
      expect(new Set(queued.items.map((r) => r.id))).toEqual(new Set([ids[1], ids[3]]))
      await expect(listRuns(tx, { cursor: 'e30' })).rejects.toMatchObject({
        code: 'invalid-cursor',
      })
    })
  })
})

describe('claimRun', () => {
  it('lets only the job holding the lease take a running run again', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    await withTenant(t.app, tenant, async (tx) => {
      expect((await claimRun(tx, run.id, ['queued'], 'job-a'))?.leaseJob).toBe('job-a')
      expect(await claimRun(tx, run.id, ['queued'], 'job-b')).toBeNull()
      expect((await claimRun(tx, run.id, ['queued'], 'job-a'))?.status).toBe('running')
    })
  })

  it('hands a lost lease to exactly one new job', async () => {
    const tenant = randomTenant()
    const { run } = await start(tenant)
    await withTenant(t.app, tenant, (tx) => claimRun(tx, run.id, ['queued'], 'lost'))
    const takeovers = await Promise.all(
      ['new-1', 'new-2'].map((job) =>
        withTenant(t.app, tenant, (tx) => takeOverRunLease(tx, run.id, 'lost', job)),
      ),
    )
    expect(takeovers.filter((r) => r !== null)).toHaveLength(1)
  })
})
