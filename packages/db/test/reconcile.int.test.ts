import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  claimRun,
  decideApproval,
  listElapsedTimers,
  listOverdueApprovals,
  listPendingResumes,
  listRunsInStatus,
  listUnresumedApprovals,
  openApproval,
  requestResume,
  transitionRun,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase
const later = () => new Date(Date.now() + 60_000)

beforeAll(async () => {
  t = await createTestDatabase('weave_db_reconcile')
})

afterAll(async () => {
  await t?.drop()
})

describe('reconciler scans', () => {
  it('lists the runs of one status across tenants, oldest change first, page by page', async () => {
    const [a, b] = [randomTenant(), randomTenant()]
    const queued = [await seedRunIn(t.app, a), await seedRunIn(t.app, b), await seedRunIn(t.app, a)]
    const running = await seedRunIn(t.app, b)
    await withTenant(t.app, b, (tx) => claimRun(tx, running.id, ['queued'], 'job-1'))
    const ids = new Set(queued.map((r) => r.id))
    const first = (
      await listRunsInStatus(t.app, { status: 'queued', updatedBefore: later() })
    ).filter((r) => ids.has(r.id))
    expect(first.map((r) => r.id)).toEqual(queued.map((r) => r.id))
    const page = await listRunsInStatus(t.app, {
      status: 'queued',
      updatedBefore: later(),
      after: { at: first[0]!.updatedAt, id: first[0]!.id },
    })
    expect(page.map((r) => r.id)).not.toContain(first[0]!.id)
    expect(page.map((r) => r.id)).toContain(first[1]!.id)
    const stale = await listRunsInStatus(t.app, { status: 'running', updatedBefore: later() })
    expect(stale.map((r) => [r.tenant, r.id, r.leaseJob])).toContainEqual([b, running.id, 'job-1'])
    expect(await listRunsInStatus(t.app, { status: 'queued', updatedBefore: new Date(0) })).toEqual(
      [],
    )
  })

  it('lists waiting runs whose timer is due, and no other waiting run', async () => {
    const tenant = randomTenant()
    const [due, notYet, onInput] = [
      await seedRunIn(t.app, tenant),
      await seedRunIn(t.app, tenant),
      await seedRunIn(t.app, tenant),
    ]
    await withTenant(t.app, tenant, async (tx) => {
      const park = async (id: string, waitingOn: Parameters<typeof transitionRun>[4]) => {
        await transitionRun(tx, id, ['queued'], 'running')
        await transitionRun(tx, id, ['running'], 'waiting', waitingOn)
      }
      const timer = (until: Date) => ({
        waitingOn: { kind: 'wait' as const, step: 'w', atSeq: 1, until: until.toISOString() },
      })
      await park(due.id, timer(new Date(Date.now() - 1000)))
      await park(notYet.id, timer(new Date(Date.now() + 3_600_000)))
      await park(onInput.id, {
        waitingOn: { kind: 'input', step: 'i', atSeq: 1, prompt: null, schema: null, saveAs: null },
      })
    })
    const found = await listElapsedTimers(t.app, { now: new Date() })
    expect(found.map((r) => r.id)).toContain(due.id)
    expect(found.map((r) => r.id)).not.toContain(notYet.id)
    expect(found.map((r) => r.id)).not.toContain(onInput.id)
  })

  it('lists runs holding a resume request, and approvals settled while their run waits', async () => {
    const tenant = randomTenant()
    const [onInput, onApproval] = [await seedRunIn(t.app, tenant), await seedRunIn(t.app, tenant)]
    const approvalId = await withTenant(t.app, tenant, async (tx) => {
      await transitionRun(tx, onInput.id, ['queued'], 'running')
      await transitionRun(tx, onInput.id, ['running'], 'waiting', {
        waitingOn: { kind: 'input', step: 'i', atSeq: 0, prompt: null, schema: null, saveAs: null },
      })
      await requestResume(tx, onInput.id, {
        reason: 'input',
        input: { ok: true },
        atSeq: 0,
        by: 'alice',
        at: new Date().toISOString(),
      })
      const { approval } = await openApproval(tx, {
        runId: onApproval.id,
        step: 'review',
        seq: 1,
        title: 'Ok?',
      })
      await transitionRun(tx, onApproval.id, ['queued'], 'running')
      await transitionRun(tx, onApproval.id, ['running'], 'waiting', {
        waitingOn: { kind: 'approval', step: 'review', approvalId: approval.id, atSeq: 1 },
      })
      await decideApproval(tx, {
        approvalId: approval.id,
        subject: 'bob',
        subjectScopes: [],
        decision: 'approve',
      })
      return approval.id
    })
    const resumes = await listPendingResumes(t.app, { updatedBefore: later() })
    expect(resumes.map((r) => [r.tenant, r.id])).toContainEqual([tenant, onInput.id])
    const unresumed = await listUnresumedApprovals(t.app, { settledBefore: later() })
    expect(unresumed.map((r) => [r.tenant, r.id, r.runId])).toContainEqual([
      tenant,
      approvalId,
      onApproval.id,
    ])
    await t.owner.query('update approvals set consumed_seq = 2 where id = $1', [approvalId])
    const after = await listUnresumedApprovals(t.app, { settledBefore: later() })
    expect(after.map((r) => r.id)).not.toContain(approvalId)
  })

  it('lists pending approvals past their expiry', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const { overdue } = await withTenant(t.app, tenant, async (tx) => ({
      overdue: await openApproval(tx, {
        runId: run.id,
        step: 'a',
        seq: 1,
        title: 'late',
        expiresAt: new Date(Date.now() - 1000),
      }),
      later: await openApproval(tx, {
        runId: run.id,
        step: 'b',
        seq: 1,
        title: 'later',
        expiresAt: new Date(Date.now() + 3_600_000),
      }),
    }))
    const found = await listOverdueApprovals(t.app)
    expect(found.map((x) => [x.tenant, x.id, x.runId])).toEqual([
      [tenant, overdue.approval.id, run.id],
    ])
  })
})
