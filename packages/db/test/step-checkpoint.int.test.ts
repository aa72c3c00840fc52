import { randomBytes, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  StepRefusedError,
  appendRunEvent,
  claimRun,
  createWebhook,
  decideApproval,
  deleteWebhook,
  loadCheckpointRow,
  openApproval,
  saveStepCheckpoint,
  takeOverRunLease,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, pgErrorOf, runsUpdatedBy } from './test-database.js'
import { claimedRun as claimedStepRun, STEP_NS, stepWrite } from './step-writes.js'

// A step's checkpoint is one statement (weave_save_step): the fence (the run is running under
// the claim's token), the run's checkpoint seq moving forward only, the settled approval the step
// used, the checkpoint rows and the step's `step.completed` event with its webhook deliveries
// commit together or not at all. An executor that lost its claim, or one behind the run, writes
// nothing; a write that fails part way leaves nothing of its other parts.

let t: TestDatabase
const secretsKey = randomBytes(32)
const NS = STEP_NS

beforeAll(async () => {
  t = await createTestDatabase('weave_db_step')
})

afterAll(async () => {
  await t?.drop()
})

const claimedRun = () => claimedStepRun(t.app, secretsKey)

/**
 * Everything a step's write could touch, read as the owner (past row-level security): the run's
 * counters and last change, the tenant's checkpoint rows, the run's events, the tenant's webhook
 * deliveries and the run's approvals.
 */
async function written(tenant: string, runId: string) {
  const q = async (text: string, values: unknown[]) => (await t.owner.query(text, values)).rows
  const [run] = await q(
    `select status, lease_token, checkpoint_seq, event_seq, pending_resume, updated_at
     from runs where id = $1`,
    [runId],
  )
  return {
    run,
    checkpoints: await q(
      `select ns, key, value, attempt_seq from weave_kv where tenant_id = $1 order by ns, key`,
      [tenant],
    ),
    events: await q(`select seq, type, data from run_events where run_id = $1 order by seq`, [
      runId,
    ]),
    deliveries: await q(
      `select webhook_id, event_type, run_id, event_seq, status, payload
       from webhook_deliveries where tenant_id = $1 order by event_seq, webhook_id`,
      [tenant],
    ),
    approvals: await q(
      `select id, status, consumed_seq from approvals where run_id = $1 order by id`,
      [runId],
    ),
  }
}

describe('saveStepCheckpoint', () => {
  it('writes the checkpoint, its step.completed event and its webhook delivery together, under the run’s lease', async () => {
    const c = await claimedRun()
    // A webhook of the tenant not subscribed to step.completed gets no delivery of it.
    await withTenant(t.app, c.tenant, (tx) =>
      createWebhook(tx, secretsKey, {
        url: 'https://hooks.test/ends',
        events: ['run.completed'],
        createdBy: 'admin',
      }),
    )
    // The claim renewed the lease a moment ago; this step comes a minute later.
    await t.owner.query(`update runs set updated_at = now() - interval '1 minute' where id = $1`, [
      c.runId,
    ])
    const before = await written(c.tenant, c.runId)

    expect(await saveStepCheckpoint(t.app, stepWrite(c, 1))).toEqual({ cancelRequested: false })

    const after = await written(c.tenant, c.runId)
    const value = JSON.stringify({ seq: 1, state: { n: 1 } })
    expect(after.checkpoints).toEqual([
      { ns: NS, key: c.runId, value, attempt_seq: null },
      { ns: NS, key: `${c.runId}/1`, value, attempt_seq: null },
    ])
    expect(await loadCheckpointRow(t.app, c.tenant, NS, c.runId)).toEqual({
      value,
      attemptSeq: null,
    })
    const seq = before.run.event_seq + 1
    expect(after.events.slice(before.events.length)).toEqual([
      { seq, type: 'step.completed', data: { step: 'a', seq: 1 } },
    ])
    expect(after.deliveries).toEqual([
      {
        webhook_id: c.webhookId,
        event_type: 'step.completed',
        run_id: c.runId,
        event_seq: seq,
        status: 'pending',
        // The delivery carries the step's own seq and, beside it, the event's number.
        payload: expect.objectContaining({
          type: 'step.completed',
          data: { step: 'a', seq: 1, runId: c.runId, eventSeq: seq },
        }),
      },
    ])
    expect(after.run).toMatchObject({
      status: 'running',
      lease_token: c.leaseToken,
      checkpoint_seq: 1,
      event_seq: seq,
    })
    // The write renews the lease: the reconciler leaves a run that just wrote a step alone.
    expect(after.run.updated_at.getTime()).toBeGreaterThan(before.run.updated_at.getTime())
  })

  it('writes the events of a tenant whose webhooks are all deleted without deliveries, and delivers again once one is created', async () => {
    const c = await claimedRun()
    const other = await claimedRun()
    await withTenant(t.app, c.tenant, (tx) => deleteWebhook(tx, c.webhookId))

    await saveStepCheckpoint(t.app, stepWrite(c, 1))

    let after = await written(c.tenant, c.runId)
    expect(after.events.at(-1)).toEqual({
      seq: after.run.event_seq,
      type: 'step.completed',
      data: { step: 'a', seq: 1 },
    })
    expect(after.deliveries).toEqual([])
    // Another tenant's live webhook is no reason to deliver this tenant's events, nor gets them.
    expect((await written(other.tenant, other.runId)).deliveries).toEqual([])

    const { webhook } = await withTenant(t.app, c.tenant, (tx) =>
      createWebhook(tx, secretsKey, {
        url: 'https://hooks.test/again',
        events: ['step.completed'],
        createdBy: 'admin',
      }),
    )
    await saveStepCheckpoint(t.app, stepWrite(c, 2))

    after = await written(c.tenant, c.runId)
    expect(after.deliveries).toEqual([
      expect.objectContaining({
        webhook_id: webhook.id,
        event_type: 'step.completed',
        event_seq: after.run.event_seq,
      }),
    ])
  })

  it('leaves a lease renewed within the second as it is, and changes no column an index of runs names', async () => {
    const c = await claimedRun()
    const before = await written(c.tenant, c.runId)

    await saveStepCheckpoint(t.app, stepWrite(c, 1))

    const after = await written(c.tenant, c.runId)
    expect(after.run).toMatchObject({ checkpoint_seq: 1, event_seq: before.run.event_seq + 1 })
    expect(after.run.updated_at).toEqual(before.run.updated_at)
    // So the update is HOT (no index entry written) when the row's page has room: no index of
    // runs may name, in its keys or its condition, another column a step's write changes.
    const { rows } = await t.owner.query<{ def: string }>(
      `select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = 'runs'::regclass`,
    )
    expect(rows.length).toBeGreaterThan(10)
    for (const { def } of rows) {
      expect(def).not.toMatch(/\b(checkpoint_seq|event_seq)\b/)
    }
  })

  it('refuses a write under a stale or wrong lease token and writes nothing at all', async () => {
    const c = await claimedRun()
    // Another job took the run over and claimed it: the first claim's token is stale.
    await withTenant(t.app, c.tenant, async (tx) => {
      await takeOverRunLease(tx, c.runId, 'job-1', 'job-2')
      await claimRun(tx, c.runId, [], 'job-2')
    })
    const before = await written(c.tenant, c.runId)
    expect(before.run.lease_token).not.toBe(c.leaseToken)

    for (const leaseToken of [c.leaseToken, randomUUID()]) {
      const refused = saveStepCheckpoint(t.app, stepWrite({ ...c, leaseToken }, 1))
      await expect(refused).rejects.toBeInstanceOf(StepRefusedError)
      await expect(refused).rejects.toMatchObject({ code: 'lease-lost', runId: c.runId })
      expect(await written(c.tenant, c.runId)).toEqual(before)
    }
  })

  it('refuses a write whose seq is not ahead of the run’s checkpoint and writes nothing at all', async () => {
    const c = await claimedRun()
    await saveStepCheckpoint(t.app, stepWrite(c, 2))
    const before = await written(c.tenant, c.runId)
    expect(before.run.checkpoint_seq).toBe(2)

    // An older executor of the same claim writing the step it had reached, or an earlier one.
    for (const seq of [2, 1]) {
      const refused = saveStepCheckpoint(t.app, stepWrite(c, seq))
      await expect(refused).rejects.toBeInstanceOf(StepRefusedError)
      await expect(refused).rejects.toMatchObject({ code: 'checkpoint-behind', runId: c.runId })
      expect(await written(c.tenant, c.runId)).toEqual(before)
    }
  })

  it('writes nothing when the approval the step used is not a settled, unused decision', async () => {
    const c = await claimedRun()
    const { approval } = await withTenant(t.app, c.tenant, (tx) =>
      openApproval(tx, { runId: c.runId, step: 'a', seq: 1, title: 'Ok?' }),
    )
    const before = await written(c.tenant, c.runId)

    // The run's checkpoint seq and lease are moved before the approval is checked: the refusal
    // must take them back with the rest.
    const refused = saveStepCheckpoint(t.app, stepWrite(c, 1, { approvalId: approval.id }))
    await expect(refused).rejects.toBeInstanceOf(StepRefusedError)
    await expect(refused).rejects.toMatchObject({ code: 'approval-not-usable' })
    expect(await written(c.tenant, c.runId)).toEqual(before)
  })

  it('writes nothing, not even the used approval or the run’s seq, when its checkpoint rows are rejected', async () => {
    const c = await claimedRun()
    const { approval } = await withTenant(t.app, c.tenant, async (tx) => {
      const opened = await openApproval(tx, { runId: c.runId, step: 'a', seq: 1, title: 'Ok?' })
      await decideApproval(tx, {
        approvalId: opened.approval.id,
        subject: 'bob',
        subjectScopes: ['approvals:decide'],
        decision: 'approve',
      })
      return opened
    })
    const before = await written(c.tenant, c.runId)
    expect(before.approvals).toEqual([{ id: approval.id, status: 'approved', consumed_seq: null }])

    // The same key twice is one row written twice in one statement, which Postgres rejects
    // after the run's seq and the approval were already updated.
    const failed = await pgErrorOf(
      saveStepCheckpoint(
        t.app,
        stepWrite(c, 1, { keys: [c.runId, c.runId], approvalId: approval.id }),
      ),
    )
    expect(failed.code).toBe('21000')
    expect(await written(c.tenant, c.runId)).toEqual(before)

    // The same write with its keys right is accepted, and uses the approval once.
    await saveStepCheckpoint(t.app, stepWrite(c, 1, { approvalId: approval.id }))
    expect((await written(c.tenant, c.runId)).approvals).toEqual([
      { id: approval.id, status: 'approved', consumed_seq: 1 },
    ])
  })

  it('writes no checkpoint row and no event when the step’s webhook delivery cannot be written', async () => {
    const c = await claimedRun()
    const { rows } = await t.owner.query<{ event_seq: number }>(
      'select event_seq from runs where id = $1',
      [c.runId],
    )
    // A delivery already holding the number the step's event will take stands for the last part
    // of the write failing, after the checkpoint rows and the event were inserted.
    await t.owner.query(
      `insert into webhook_deliveries (tenant_id, webhook_id, event_type, run_id, event_seq, payload)
       values ($1, $2, 'step.completed', $3, $4, '{}'::jsonb)`,
      [c.tenant, c.webhookId, c.runId, rows[0]!.event_seq + 1],
    )
    const before = await written(c.tenant, c.runId)

    const failed = await pgErrorOf(saveStepCheckpoint(t.app, stepWrite(c, 1)))
    expect(failed.code).toBe('23505')
    expect(await written(c.tenant, c.runId)).toEqual(before)
    expect(await loadCheckpointRow(t.app, c.tenant, NS, c.runId)).toBeUndefined()
  })

  it('numbers a step’s own events and its step.completed one after another, updating the run’s row once', async () => {
    const c = await claimedRun()
    const { webhook } = await withTenant(t.app, c.tenant, (tx) =>
      createWebhook(tx, secretsKey, {
        url: 'https://hooks.test/agents',
        events: ['agent.message', 'tool.completed'],
        createdBy: 'admin',
      }),
    )
    const before = await written(c.tenant, c.runId)
    const call = { step: 'a', callId: 'call-1', tool: 'search' }
    const events = [
      {
        type: 'agent.message' as const,
        data: {
          step: 'a',
          turn: 1,
          content: null,
          toolCalls: [{ callId: 'call-1', tool: 'search' }],
        },
      },
      { type: 'tool.requested' as const, data: { ...call, arguments: '{}' } },
      {
        type: 'tool.completed' as const,
        data: { ...call, readOnly: true, argumentsDigest: null, approvalId: null, edited: false },
      },
    ]

    const { updates } = await runsUpdatedBy(t, (database) =>
      saveStepCheckpoint(database, stepWrite(c, 1, { events })),
    )

    // Each further update of the row in the same transaction would re-check its foreign keys.
    expect(updates).toBe(1)
    const after = await written(c.tenant, c.runId)
    const first = before.run.event_seq + 1
    expect(after.events.slice(before.events.length)).toEqual([
      ...events.map((e, i) => ({ seq: first + i, ...e })),
      { seq: first + 3, type: 'step.completed', data: { step: 'a', seq: 1 } },
    ])
    expect(after.run).toMatchObject({ checkpoint_seq: 1, event_seq: first + 3 })
    const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(after.deliveries).toEqual(
      [
        [webhook.id, events[0]!, first],
        [webhook.id, events[2]!, first + 2],
        [c.webhookId, { type: 'step.completed', data: { step: 'a', seq: 1 } }, first + 3],
      ].map(([webhookId, e, seq]) => ({
        webhook_id: webhookId,
        event_type: (e as { type: string }).type,
        run_id: c.runId,
        event_seq: seq,
        status: 'pending',
        payload: {
          type: (e as { type: string }).type,
          timestamp,
          data: { ...(e as { data: object }).data, runId: c.runId, eventSeq: seq },
        },
      })),
    )
  })

  it('keeps a run’s event numbers gap-free, each step’s events together, while others append to the run', async () => {
    const c = await claimedRun()
    const before = await written(c.tenant, c.runId)
    const steps = 8
    const appends = 16

    // Nested steps' writes do not order each other, so they race with the API's appends.
    await Promise.all([
      ...Array.from({ length: steps }, (_, i) =>
        saveStepCheckpoint(
          t.app,
          stepWrite(c, i + 1, {
            isRoot: false,
            keys: [`sub-${i}`],
            latestKey: `sub-${i}`,
            event: { step: `sub/s${i}`, seq: i + 1 },
            events: [
              {
                type: 'agent.message',
                data: { step: `s${i}`, turn: 1, content: 'hi', toolCalls: [] },
              },
            ],
          }),
        ),
      ),
      ...Array.from({ length: appends }, () =>
        withTenant(t.app, c.tenant, (tx) =>
          appendRunEvent(tx, c.runId, 'run.resumed', { reason: 'input' }),
        ),
      ),
    ])

    const after = await written(c.tenant, c.runId)
    const added = after.events.slice(before.events.length)
    const first = before.run.event_seq + 1
    expect(added.map((e) => e.seq)).toEqual(
      Array.from({ length: steps * 2 + appends }, (_, i) => first + i),
    )
    expect(after.run.event_seq).toBe(first + steps * 2 + appends - 1)
    for (let i = 0; i < steps; i++) {
      const message = added.findIndex((e) => e.type === 'agent.message' && e.data.step === `s${i}`)
      expect(added[message + 1]).toMatchObject({
        type: 'step.completed',
        data: { step: `sub/s${i}`, seq: i + 1 },
      })
    }
    expect(after.deliveries.map((d) => [d.event_seq, d.payload.data.eventSeq])).toEqual(
      added.filter((e) => e.type === 'step.completed').map((e) => [e.seq, e.seq]),
    )
  })

  describe('a write that completes the run (its last step)', () => {
    /** The run's columns a completion sets, read as the owner. */
    async function ending(runId: string) {
      const { rows } = await t.owner.query(
        `select status, stop_reason, last_step, steps, finished_at, updated_at, checkpoint_seq,
           event_seq, waiting_on, wake_at, pending_resume
         from runs where id = $1`,
        [runId],
      )
      return rows[0]
    }

    it('completes the run with its run.completed event numbered right after the step’s, in the one statement', async () => {
      const c = await claimedRun()
      await saveStepCheckpoint(t.app, stepWrite(c, 1))
      const before = await written(c.tenant, c.runId)

      await saveStepCheckpoint(
        t.app,
        stepWrite(c, 2, {
          event: { step: 'b', seq: 2 },
          completes: { lastStep: 'b', addSteps: 2 },
        }),
      )

      const run = await ending(c.runId)
      expect(run).toMatchObject({
        status: 'completed',
        stop_reason: 'completed',
        last_step: 'b',
        steps: 2,
        checkpoint_seq: 2,
        waiting_on: null,
        wake_at: null,
        pending_resume: null,
      })
      expect(run.finished_at).toBeInstanceOf(Date)
      expect(run.updated_at).toEqual(run.finished_at)
      const after = await written(c.tenant, c.runId)
      const first = before.run.event_seq + 1
      expect(after.events.slice(before.events.length)).toEqual([
        { seq: first, type: 'step.completed', data: { step: 'b', seq: 2 } },
        { seq: first + 1, type: 'run.completed', data: { steps: 2, lastStep: 'b' } },
      ])
      expect(run.event_seq).toBe(first + 1)
      expect(after.checkpoints.map((k) => k.key)).toContain(`${c.runId}/2`)
      // The run is over: its claim writes nothing more.
      await expect(saveStepCheckpoint(t.app, stepWrite(c, 3))).rejects.toMatchObject({
        code: 'lease-lost',
      })
    })

    it('completes nothing and writes nothing under a lost claim', async () => {
      const c = await claimedRun()
      const before = await written(c.tenant, c.runId)
      const stale = { ...c, leaseToken: randomUUID() }

      await expect(
        saveStepCheckpoint(
          t.app,
          stepWrite(stale, 1, { completes: { lastStep: 'a', addSteps: 1 } }),
        ),
      ).rejects.toBeInstanceOf(StepRefusedError)

      expect(await ending(c.runId)).toMatchObject({ status: 'running', steps: 0 })
      expect(await written(c.tenant, c.runId)).toEqual(before)
    })

    it('never completes the run from a failed checkpoint or a nested run’s write', async () => {
      const c = await claimedRun()
      await saveStepCheckpoint(
        t.app,
        stepWrite(c, 1, { isFailed: true, event: null, completes: { lastStep: 'a', addSteps: 1 } }),
      )
      await saveStepCheckpoint(
        t.app,
        stepWrite(c, 2, {
          isRoot: false,
          keys: ['sub'],
          latestKey: 'sub',
          event: { step: 'a/s', seq: 2 },
          completes: { lastStep: 'a', addSteps: 1 },
        }),
      )

      expect(await ending(c.runId)).toMatchObject({ status: 'running', finished_at: null })
      const { events } = await written(c.tenant, c.runId)
      expect(events.map((e) => e.type)).not.toContain('run.completed')
    })
  })
})
