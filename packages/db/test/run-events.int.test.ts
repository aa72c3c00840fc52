import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  appendRunEvent,
  appendRunEventAndAudit,
  listAudit,
  listRunEvents,
  verifyAudit,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_events')
})

afterAll(async () => {
  await t?.drop()
})

describe('run events', () => {
  it('numbers events 1, 2, 3 … without gaps under 20 concurrent appenders', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const appended = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withTenant(t.app, tenant, (tx) =>
          appendRunEvent(tx, run.id, 'step.completed', { step: `s${i}`, seq: i + 1 }),
        ),
      ),
    )
    expect(appended.map((e) => e.seq).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    const listed = await withTenant(t.app, tenant, (tx) => listRunEvents(tx, run.id))
    expect(listed.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
  })

  it('numbers each run on its own', async () => {
    const tenant = randomTenant()
    const [x, y] = [await seedRunIn(t.app, tenant), await seedRunIn(t.app, tenant)]
    await withTenant(t.app, tenant, async (tx) => {
      const queued = { graph: 'g', version: 1 }
      expect((await appendRunEvent(tx, x.id, 'run.queued', queued)).seq).toBe(1)
      expect((await appendRunEvent(tx, y.id, 'run.queued', queued)).seq).toBe(1)
      expect((await appendRunEvent(tx, x.id, 'run.started', {})).seq).toBe(2)
    })
  })

  it('lists events after a sequence number, in order', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    await withTenant(t.app, tenant, async (tx) => {
      await appendRunEvent(tx, run.id, 'run.queued', { graph: 'g', version: 1 })
      await appendRunEvent(tx, run.id, 'run.started', {})
      await appendRunEvent(tx, run.id, 'run.completed', { steps: 1, lastStep: 'a' })
      const after = await listRunEvents(tx, run.id, { afterSeq: 1 })
      expect(after.map((e) => [e.seq, e.type, e.data])).toEqual([
        [2, 'run.started', {}],
        [3, 'run.completed', { steps: 1, lastStep: 'a' }],
      ])
      expect(await listRunEvents(tx, run.id, { afterSeq: 1, limit: 1 })).toHaveLength(1)
      expect(await listRunEvents(tx, 'nope')).toEqual([])
    })
  })

  it("refuses data that is not its type's payload, writing nothing", async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    await expect(
      withTenant(t.app, tenant, (tx) =>
        appendRunEvent(tx, run.id, 'run.completed', { steps: -1 } as never),
      ),
    ).rejects.toThrow()
    expect(await withTenant(t.app, tenant, (tx) => listRunEvents(tx, run.id))).toEqual([])
  })

  it('refuses an event for a run that does not exist', async () => {
    await expect(
      withTenant(t.app, randomTenant(), (tx) =>
        appendRunEvent(tx, crypto.randomUUID(), 'run.started', {}),
      ),
    ).rejects.toMatchObject({ code: 'run-not-found', name: 'NotFoundError' })
  })

  it('appends an event and its audit event in one statement, both or neither', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const audit = {
      actor: 'alice',
      action: 'run.cancel-requested',
      target: { kind: 'run', id: run.id },
      details: { reason: 'test' },
    }
    const event = await withTenant(t.app, tenant, (tx) =>
      appendRunEventAndAudit(tx, run.id, 'run.started', {}, audit),
    )
    expect(event).toMatchObject({ runId: run.id, seq: 1, type: 'run.started' })
    // A missing run writes no audit event; a rolled-back transaction keeps neither.
    await expect(
      withTenant(t.app, tenant, (tx) =>
        appendRunEventAndAudit(tx, crypto.randomUUID(), 'run.started', {}, audit),
      ),
    ).rejects.toMatchObject({ code: 'run-not-found' })
    await expect(
      withTenant(t.app, tenant, async (tx) => {
        await appendRunEventAndAudit(tx, run.id, 'run.started', {}, audit)
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    const events = await withTenant(t.app, tenant, (tx) => listRunEvents(tx, run.id))
    expect(events.map((e) => e.seq)).toEqual([1])
    const { items } = await withTenant(t.app, tenant, (tx) => listAudit(tx, {}))
    expect(items.map((e) => [e.seq, e.action, e.details])).toEqual([
      [1, 'run.cancel-requested', { reason: 'test' }],
    ])
    expect(await withTenant(t.app, tenant, (tx) => verifyAudit(tx))).toMatchObject({ ok: true })
  })
})
