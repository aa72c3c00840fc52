import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  type ApprovalLifecycle,
  type JobSink,
  type OpenApprovalInput,
  createApprovalLifecycle,
  decideApproval,
  getApproval,
  readApproval,
  withTenant,
} from '@weave/db'
import {
  type TestDatabase,
  createTestDatabase,
  randomTenant,
  seedApprovalIn,
} from './test-database.js'

let t: TestDatabase
let lifecycle: ApprovalLifecycle
const enqueued: unknown[] = []

beforeAll(async () => {
  t = await createTestDatabase('weave_db_decision_reads')
  const jobs: JobSink = {
    enqueue: async (_kind, job) => {
      enqueued.push(job)
      return true
    },
  }
  lifecycle = createApprovalLifecycle({ database: t.app, jobs })
})

afterAll(async () => {
  await t?.drop()
})

function open(tenant: string, options: Partial<OpenApprovalInput> = {}) {
  return seedApprovalIn(t.app, tenant, options)
}

/** Decides through the lifecycle, counting the statements sent to Postgres. */
async function countedDecide(
  tenant: string,
  approvalId: string,
  subject: string,
): Promise<{ sent: number; didSettle: boolean }> {
  const query = vi.spyOn(pg.Client.prototype, 'query')
  try {
    const result = await lifecycle.decide(tenant, {
      approvalId,
      subject,
      subjectScopes: [],
      decision: 'approve',
      context: { requestId: 'r1' },
    })
    return { sent: query.mock.calls.length, didSettle: result.didSettle }
  } finally {
    query.mockRestore()
  }
}

describe('a decision', () => {
  it('is four statements and the chain call of its audit event, whether it settles the approval or not', async () => {
    // BEGIN with the settings; the run's and the approval's locks with the earlier decisions;
    // the insert with the settle, the run event and the pending audit row; COMMIT; then, after
    // the commit, weave_chain_audit. (An approval step has no siblings to look for.)
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 2 })
    expect(await countedDecide(tenant, approvalId, 'alice')).toEqual({ sent: 5, didSettle: false })
    expect(await countedDecide(tenant, approvalId, 'bob')).toEqual({ sent: 5, didSettle: true })
  })

  it('shows the approval and its decisions as a read of them does', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 3, details: { n: 1 } })
    const inputs = [{ note: 'a', n: [1, { deep: true }] }, 'text', null]
    const results = []
    for (const [i, subject] of ['alice', 'bob', 'carol'].entries()) {
      results.push(
        await withTenant(t.app, tenant, (tx) =>
          decideApproval(tx, {
            approvalId,
            subject,
            subjectScopes: [],
            decision: 'approve',
            comment: i === 0 ? null : `by ${subject}`,
            input: inputs[i] ?? null,
            idempotencyKey: `k-${subject}`,
            requestHash: `h-${subject}`,
          }),
        ),
      )
    }
    const stored = await withTenant(t.app, tenant, (tx) => getApproval(tx, approvalId))
    expect(results.at(-1)!.didSettle).toBe(true)
    expect(results.at(-1)!.approval).toEqual(stored)
    expect(results[1]!.approval.decisions).toEqual(stored!.decisions.slice(0, 2))
    // A replay reads the same decisions through the same statement.
    const replay = await withTenant(t.app, tenant, (tx) =>
      decideApproval(tx, {
        approvalId,
        subject: 'bob',
        subjectScopes: [],
        decision: 'approve',
        comment: 'by bob',
        input: 'text',
        idempotencyKey: 'k-bob',
        requestHash: 'h-bob',
      }),
    )
    expect(replay).toMatchObject({ replayed: true, approval: stored })
  })

  it('orders its decisions as a read does when an earlier-started transaction decides last', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 2 })
    const decide = (subject: string) => ({
      approvalId,
      subject,
      subjectScopes: [],
      decision: 'approve' as const,
    })
    // alice's transaction starts first (her decision's `at` is its start), bob decides and
    // commits meanwhile, then alice settles: her decision is older than bob's by `at`.
    const settled = await withTenant(t.app, tenant, async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      await withTenant(t.app, tenant, (other) => decideApproval(other, decide('bob')))
      return decideApproval(tx, decide('alice'))
    })
    const stored = await withTenant(t.app, tenant, (tx) => getApproval(tx, approvalId))
    expect(settled.didSettle).toBe(true)
    expect(stored!.decisions.map((d) => d.subject)).toEqual(['alice', 'bob'])
    expect(settled.approval).toEqual(stored)
  })

  it('locks the run row before the approval', async () => {
    const tenant = randomTenant()
    const { approvalId, runId } = await open(tenant)
    const holder = await t.owner.connect()
    const probe = await t.owner.connect()
    try {
      await holder.query('begin')
      await holder.query('select 1 from runs where id = $1 for no key update', [runId])
      const decision = lifecycle.decide(tenant, {
        approvalId,
        subject: 'alice',
        subjectScopes: [],
        decision: 'approve',
        context: {},
      })
      decision.catch(() => undefined)
      // Wait until the decision's statement waits for a lock (the run row's holder).
      for (let waiting = false; !waiting;) {
        const { rows } = await probe.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock'
             and query like '%weave_lock_approval_for_decision%'`,
        )
        waiting = rows[0]!.n === 1
      }
      // The waiting decision holds no lock on the approval: another transaction takes it at once.
      await probe.query('begin')
      const { rowCount } = await probe.query(
        'select 1 from approvals where id = $1 for update nowait',
        [approvalId],
      )
      expect(rowCount).toBe(1)
      await probe.query('rollback')
      await holder.query('rollback')
      expect(await decision).toMatchObject({ didSettle: true })
    } finally {
      await holder.query('rollback').catch(() => undefined)
      holder.release()
      probe.release()
    }
  })
})

describe('readApproval', () => {
  it('reads an approval with its decisions as getApproval does, in one statement, leaving no tenant on the connection', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 3, details: { n: 2 } })
    for (const [i, subject] of ['carol', 'alice'].entries()) {
      await withTenant(t.app, tenant, (tx) =>
        decideApproval(tx, {
          approvalId,
          subject,
          subjectScopes: [],
          decision: 'approve',
          comment: `by ${subject}`,
          input: i === 0 ? { nested: [1, { deep: 'yes' }] } : null,
        }),
      )
    }
    const stored = await withTenant(t.app, tenant, (tx) => getApproval(tx, approvalId))
    const query = vi.spyOn(pg.Client.prototype, 'query')
    let read: Awaited<ReturnType<typeof readApproval>>
    try {
      read = await readApproval(t.app, tenant, approvalId)
      expect(query.mock.calls).toHaveLength(1)
    } finally {
      query.mockRestore()
    }
    expect(stored!.decisions.map((d) => d.subject)).toEqual(['carol', 'alice'])
    expect(read).toEqual(stored)
    const { rows } = await t.app.pool.query<{ tenant: string | null }>(
      "select current_setting('weave.tenant', true) as tenant",
    )
    expect(rows[0]!.tenant ?? '').toBe('')
  })

  it('reads nothing of another tenant, and nothing for an id that is not a UUID', async () => {
    const tenant = randomTenant()
    const { approvalId } = await open(tenant)
    expect(await readApproval(t.app, randomTenant(), approvalId)).toBeNull()
    expect(await readApproval(t.app, tenant, 'not-a-uuid')).toBeNull()
    expect(await readApproval(t.app, tenant, approvalId)).not.toBeNull()
  })
})
