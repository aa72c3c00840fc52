import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  claimRunForJob,
  completeRun,
  createWebhook,
  getRun,
  listRunEvents,
  requestResume,
  requestRunCancel,
  transitionRun,
  withTenant,
  type RunClaimRequest,
} from '@weave/db'
import {
  type TestDatabase,
  createTestDatabase,
  randomTenant,
  runsUpdatedBy,
  seedRunIn,
} from './test-database.js'

// A worker claims its run and completes it in one statement each (weave_claim_run,
// weave_complete_run). They must keep what the transactions they replace promised: one claim at
// a time with a new fencing token each, no claim of a run that moved on, and a completion that
// only the current claim can make, each with its event.

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_run_claim')
})

afterAll(async () => {
  await t?.drop()
})

function claim(tenant: string, runId: string, o: Partial<RunClaimRequest> = {}) {
  return claimRunForJob(t.app, {
    tenant,
    runId,
    jobId: 'job-1',
    from: ['queued'],
    eventReason: 'run',
    ...o,
  })
}

async function eventTypes(tenant: string, runId: string): Promise<string[]> {
  const events = await withTenant(t.app, tenant, (tx) => listRunEvents(tx, runId))
  return events.map((e) => e.type)
}

describe('claimRunForJob', () => {
  it('claims a queued run once with a new token and a run.started event; no other job takes it', async () => {
    const tenant = randomTenant()
    const seeded = await seedRunIn(t.app, tenant)
    const first = await claim(tenant, seeded.id)
    if (!('run' in first)) throw new Error(`skipped: ${first.skipped}`)
    const stored = await withTenant(t.app, tenant, (tx) => getRun(tx, seeded.id))
    expect(first.run).toEqual(stored)
    expect(first.run).toMatchObject({ status: 'running', leaseJob: 'job-1' })
    expect(first.run.leaseToken).toEqual(expect.any(String))
    expect(first.run.updatedAt).toBeInstanceOf(Date)

    expect(await claim(tenant, seeded.id, { jobId: 'job-2' })).toEqual({ skipped: 'running' })
    // The same job, retaken after its worker died, claims again under a new token.
    const again = await claim(tenant, seeded.id)
    if (!('run' in again)) throw new Error(`skipped: ${again.skipped}`)
    expect(again.run.leaseToken).not.toBe(first.run.leaseToken)
    expect(await eventTypes(tenant, seeded.id)).toEqual(['run.started'])
  })

  it("refuses another tenant's run, an unknown one and a cancelled one", async () => {
    const tenant = randomTenant()
    const seeded = await seedRunIn(t.app, tenant)
    expect(await claim(randomTenant(), seeded.id)).toEqual({ skipped: 'missing' })
    expect(await claim(tenant, '00000000-0000-4000-8000-000000000000')).toEqual({
      skipped: 'missing',
    })
    await withTenant(t.app, tenant, (tx) => requestRunCancel(tx, seeded.id))
    expect(await claim(tenant, seeded.id)).toEqual({ skipped: 'cancelled' })
    expect(await eventTypes(tenant, seeded.id)).toEqual([])
  })

  it('skips a resume whose checkpoint the run left, or whose input request is missing', async () => {
    const tenant = randomTenant()
    const seeded = await seedRunIn(t.app, tenant)
    const first = await claim(tenant, seeded.id)
    if (!('run' in first)) throw new Error('not claimed')
    await withTenant(t.app, tenant, (tx) =>
      transitionRun(tx, seeded.id, ['running'], 'waiting', {
        waitingOn: { kind: 'input', step: 'a', atSeq: 0, prompt: null, schema: {}, saveAs: null },
      }),
    )
    const resume = { from: ['waiting'] as const, jobId: 'resume-1', eventReason: 'input' }
    expect(await claim(tenant, seeded.id, { ...resume, resumeAtSeq: 3 })).toEqual({
      skipped: 'moved-on',
    })
    expect(
      await claim(tenant, seeded.id, { ...resume, resumeAtSeq: 0, resumeReason: 'input' }),
    ).toEqual({ skipped: 'moved-on' })

    await withTenant(t.app, tenant, (tx) =>
      requestResume(tx, seeded.id, {
        reason: 'input',
        input: { answer: 42 },
        atSeq: 0,
        by: 'alice',
        at: new Date().toISOString(),
      }),
    )
    const resumed = await claim(tenant, seeded.id, {
      ...resume,
      resumeAtSeq: 0,
      resumeReason: 'input',
    })
    if (!('run' in resumed)) throw new Error(`skipped: ${resumed.skipped}`)
    // The request stays on the run until the first checkpoint after it applies it.
    expect(resumed.run.pendingResume).toMatchObject({ reason: 'input', input: { answer: 42 } })
    expect(await eventTypes(tenant, seeded.id)).toEqual(['run.started', 'run.resumed'])
  })
})

describe('completeRun', () => {
  it('completes only under the current claim, once, with its run.completed event', async () => {
    const tenant = randomTenant()
    const seeded = await seedRunIn(t.app, tenant)
    const first = await claim(tenant, seeded.id)
    const second = await claim(tenant, seeded.id)
    if (!('run' in first) || !('run' in second)) throw new Error('not claimed')
    const completion = {
      tenant,
      runId: seeded.id,
      stopReason: 'completed',
      lastStep: 'a',
      addSteps: 1,
    }
    // The first claim's executor was fenced out by the second claim.
    expect(await completeRun(t.app, { ...completion, leaseToken: first.run.leaseToken! })).toBe(
      false,
    )
    expect(await completeRun(t.app, { ...completion, leaseToken: second.run.leaseToken! })).toBe(
      true,
    )
    expect(await completeRun(t.app, { ...completion, leaseToken: second.run.leaseToken! })).toBe(
      false,
    )
    const run = await withTenant(t.app, tenant, (tx) => getRun(tx, seeded.id))
    expect(run).toMatchObject({ status: 'completed', steps: 1, lastStep: 'a' })
    expect(run?.finishedAt).toBeInstanceOf(Date)
    const events = await withTenant(t.app, tenant, (tx) => listRunEvents(tx, seeded.id))
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'run.started'],
      [2, 'run.completed'],
    ])
    expect(events[1]?.data).toEqual({ steps: 1, lastStep: 'a' })
  })

  it("never completes another tenant's run", async () => {
    const tenant = randomTenant()
    const seeded = await seedRunIn(t.app, tenant)
    const claimed = await claim(tenant, seeded.id)
    if (!('run' in claimed)) throw new Error('not claimed')
    expect(
      await completeRun(t.app, {
        tenant: randomTenant(),
        runId: seeded.id,
        leaseToken: claimed.run.leaseToken!,
        stopReason: 'completed',
        lastStep: 'a',
        addSteps: 1,
      }),
    ).toBe(false)
    expect((await withTenant(t.app, tenant, (tx) => getRun(tx, seeded.id)))?.status).toBe('running')
  })
})

describe('a claim and a completion', () => {
  it('each update the run’s row once, numbering their event and its deliveries in that update', async () => {
    const tenant = randomTenant()
    const seeded = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, (tx) =>
      createWebhook(tx, randomBytes(32), {
        url: 'https://hooks.test/runs',
        events: ['run.started', 'run.resumed', 'run.completed'],
        createdBy: 'admin',
      }),
    )
    const request = { tenant, runId: seeded.id, jobId: 'job-1', eventReason: 'timer' }

    const started = await runsUpdatedBy(t, (database) =>
      claimRunForJob(database, { ...request, from: ['queued'] }),
    )
    if (!('run' in started.result)) throw new Error('not claimed')
    await withTenant(t.app, tenant, (tx) =>
      transitionRun(tx, seeded.id, ['running'], 'waiting', {
        waitingOn: { kind: 'wait', step: 'a', atSeq: 0, until: new Date().toISOString() },
      }),
    )
    const resumed = await runsUpdatedBy(t, (database) =>
      claimRunForJob(database, { ...request, jobId: 'job-2', from: ['waiting'] }),
    )
    if (!('run' in resumed.result)) throw new Error('not resumed')
    const leaseToken = resumed.result.run.leaseToken!
    const completed = await runsUpdatedBy(t, (database) =>
      completeRun(database, {
        tenant,
        runId: seeded.id,
        leaseToken,
        stopReason: 'completed',
        lastStep: 'a',
        addSteps: 1,
      }),
    )

    expect([started.updates, resumed.updates, completed.updates]).toEqual([1, 1, 1])
    expect(completed.result).toBe(true)
    const events = await withTenant(t.app, tenant, (tx) => listRunEvents(tx, seeded.id))
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'run.started'],
      [2, 'run.resumed'],
      [3, 'run.completed'],
    ])
    // A claim's row says which number its event took.
    expect([started.result.run.eventSeq, resumed.result.run.eventSeq]).toEqual([1, 2])
    expect((await withTenant(t.app, tenant, (tx) => getRun(tx, seeded.id)))?.eventSeq).toBe(3)
    const { rows } = await t.owner.query(
      `select event_seq, payload from webhook_deliveries where run_id = $1 order by event_seq`,
      [seeded.id],
    )
    expect(rows).toEqual([
      {
        event_seq: 1,
        payload: expect.objectContaining({
          type: 'run.started',
          data: { runId: seeded.id, eventSeq: 1 },
        }),
      },
      {
        event_seq: 2,
        payload: expect.objectContaining({
          type: 'run.resumed',
          data: { reason: 'timer', runId: seeded.id, eventSeq: 2 },
        }),
      },
      {
        event_seq: 3,
        payload: expect.objectContaining({
          type: 'run.completed',
          data: { steps: 1, lastStep: 'a', runId: seeded.id, eventSeq: 3 },
        }),
      },
    ])
  })
})
