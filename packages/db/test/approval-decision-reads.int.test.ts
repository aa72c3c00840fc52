import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  type ApprovalLifecycle,
  type JobSink,
  type OpenApprovalInput,
  createApprovalLifecycle,
  decideApproval,
  getApproval,
  openApproval,
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

function decideOnPool(tenant: string, approvalId: string, subject: string) {
  return lifecycle.decide(tenant, {
    approvalId,
    subject,
    subjectScopes: [],
    decision: 'approve',
    context: {},
  })
}

/**
 * Holds the run's row lock until `meanwhile` ran in the holder's transaction and committed,
 * while alice's decision (on the pool) waits for it in its write, after its read.
 */
async function decideAcross(
  tenant: string,
  meanwhile: (
    holder: pg.PoolClient,
    ids: { approvalId: string; runId: string },
    probe: pg.PoolClient,
  ) => Promise<void>,
  options: Partial<OpenApprovalInput> = {},
) {
  const ids = await open(tenant, options)
  const holder = await t.owner.connect()
  const probe = await t.owner.connect()
  try {
    await holder.query('begin')
    await holder.query('select 1 from runs where id = $1 for no key update', [ids.runId])
    const decision = decideOnPool(tenant, ids.approvalId, 'alice')
    decision.catch(() => undefined)
    // Wait until the decision's write waits for a lock (the run row's holder).
    for (let waiting = false; !waiting;) {
      const { rows } = await probe.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'
           and query like '%weave_decide_approval%'`,
      )
      waiting = rows[0]!.n === 1
    }
    await meanwhile(holder, ids, probe)
    await holder.query('commit')
    const outcome = await decision.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    )
    const stored = await withTenant(t.app, tenant, (tx) => getApproval(tx, ids.approvalId))
    return { outcome, stored: stored! }
  } finally {
    await holder.query('rollback').catch(() => undefined)
    holder.release()
    probe.release()
  }
}

describe('a decision', () => {
  it('is two statements and the chain call of its audit event, whether it settles the approval or not', async () => {
    // The read with the earlier decisions; the write that locks the run and the approval, checks
    // them and inserts the decision with the settle, the run event and the pending audit row,
    // each committing on its own; then weave_chain_audit.
    const tenant = randomTenant()
    const { approvalId } = await open(tenant, { required: 2 })
    expect(await countedDecide(tenant, approvalId, 'alice')).toEqual({ sent: 3, didSettle: false })
    expect(await countedDecide(tenant, approvalId, 'bob')).toEqual({ sent: 3, didSettle: true })
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
    const { outcome } = await decideAcross(tenant, async (_holder, { approvalId }, probe) => {
      // The waiting decision holds no lock on the approval: another transaction takes it at once.
      await probe.query('begin')
      const { rowCount } = await probe.query(
        'select 1 from approvals where id = $1 for update nowait',
        [approvalId],
      )
      expect(rowCount).toBe(1)
      await probe.query('rollback')
    })
    expect(outcome).toMatchObject({ value: { didSettle: true } })
  })
})

describe('a decision on the pool, read then written', () => {
  it('settles an approval once among concurrent deciders, with exactly its quorum recorded', async () => {
    const tenant = randomTenant()
    for (const required of [1, 3]) {
      const { approvalId } = await open(tenant, { required })
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => decideOnPool(tenant, approvalId, `s${i}`)),
      )
      const recorded = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []))
      expect(recorded).toHaveLength(required)
      expect(recorded.filter((r) => r.didSettle)).toHaveLength(1)
      expect(refused).toHaveLength(12 - required)
      for (const reason of refused) expect(reason).toMatchObject({ code: 'approval-settled' })
      const stored = await withTenant(t.app, tenant, (tx) => getApproval(tx, approvalId))
      expect(stored!.status).toBe('approved')
      expect(stored!.decisions).toHaveLength(required)
      expect(recorded.find((r) => r.didSettle)!.approval).toEqual(stored)
      const resumes = enqueued.filter(
        (job) => (job as { approvalId?: string }).approvalId === approvalId,
      )
      expect(resumes).toHaveLength(1)
    }
  })

  it('reads and checks again when a decision lands between its read and its write', async () => {
    const tenant = randomTenant()
    const { outcome, stored } = await decideAcross(
      tenant,
      (holder, { approvalId }) =>
        holder
          .query(
            `insert into approval_decisions (tenant_id, approval_id, subject, decision)
             values ($1, $2, 'bob', 'approve')`,
            [tenant, approvalId],
          )
          .then(() => undefined),
      { required: 2 },
    )
    // Alice read no decision, so her approval alone would not have settled a quorum of two;
    // checked again with bob's, it settles it.
    expect(outcome).toMatchObject({ value: { didSettle: true } })
    expect(stored.status).toBe('approved')
    expect(stored.decisions.map((d) => d.subject)).toEqual(['bob', 'alice'])
    expect((outcome as { value: { approval: unknown } }).value.approval).toEqual(stored)
  })

  it('refuses a decision whose approval expired between its read and its write, writing nothing', async () => {
    const tenant = randomTenant()
    const { outcome, stored } = await decideAcross(tenant, (holder, { approvalId }) =>
      holder
        .query(`update approvals set expires_at = now() - interval '1 second' where id = $1`, [
          approvalId,
        ])
        .then(() => undefined),
    )
    expect(outcome).toMatchObject({ error: { code: 'approval-expired' } })
    expect(stored.status).toBe('pending')
    expect(stored.decisions).toEqual([])
  })

  it('resumes the run once when the last two approvals of one turn are decided at once', async () => {
    const tenant = randomTenant()
    for (let i = 0; i < 8; i++) {
      const first = await open(tenant, { callId: 'call-1' })
      const { approval: second } = await withTenant(t.app, tenant, (tx) =>
        openApproval(tx, {
          runId: first.runId,
          step: 'review',
          seq: 1,
          callId: 'call-2',
          title: 'Refund 10?',
        }),
      )
      const results = await Promise.all(
        [first.approvalId, second.id].map((id, n) => decideOnPool(tenant, id, `s${n}`)),
      )
      expect(results.map((r) => r.didSettle)).toEqual([true, true])
      expect(results.filter((r) => !r.pendingSibling)).toHaveLength(1)
      const resumes = enqueued.filter((job) => (job as { runId?: string }).runId === first.runId)
      expect(resumes).toHaveLength(1)
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
