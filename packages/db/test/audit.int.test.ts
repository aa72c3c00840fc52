import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AuditEvent,
  GENESIS_HASH,
  appendAudit,
  auditHash,
  listAudit,
  verifyAudit,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, pgErrorOf, randomTenant } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_audit')
})

afterAll(async () => {
  await t?.drop()
})

async function append(tenant: string, n: number, action = 'run.started'): Promise<AuditEvent[]> {
  const events: AuditEvent[] = []
  for (let i = 0; i < n; i++) {
    events.push(
      await withTenant(t.app, tenant, (tx) =>
        appendAudit(tx, {
          actor: `user-${i}`,
          action,
          target: { kind: 'run', id: `run-${i}` },
          requestId: `req-${i}`,
          ip: '127.0.0.1',
          details: { i, nested: { b: 1, a: [1, 'x'] } },
        }),
      ),
    )
  }
  return events
}

const verify = (tenant: string) => withTenant(t.app, tenant, (tx) => verifyAudit(tx))

/** Runs SQL as the owner with the append-only trigger disabled, as an attacker with DDL would. */
async function tamper(statements: string | string[], params: unknown[]): Promise<void> {
  const client = await t.owner.connect()
  try {
    await client.query('begin')
    await client.query('alter table audit_events disable trigger audit_events_refuse_update_delete')
    for (const statement of [statements].flat()) await client.query(statement, params)
    await client.query('alter table audit_events enable trigger audit_events_refuse_update_delete')
    await client.query('commit')
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
}

describe('appendAudit', () => {
  it('chains events: seq 1, 2, 3 and each prevHash is the previous hash', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 3)
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3])
    expect(events[0]?.prevHash).toBe(GENESIS_HASH)
    expect(events[1]?.prevHash).toBe(events[0]?.hash)
    expect(events[2]?.prevHash).toBe(events[1]?.hash)
    for (const { hash, ...rest } of events) expect(auditHash(rest)).toBe(hash)
  })

  it('reads back exactly what it hashed, millisecond timestamp included', async () => {
    const tenant = randomTenant()
    const [written] = await append(tenant, 1)
    const page = await withTenant(t.app, tenant, (tx) => listAudit(tx))
    expect(page.items).toEqual([written])
    expect(written?.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it('forms one gap-free chain from 20 concurrent writers of one tenant', async () => {
    const tenant = randomTenant()
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withTenant(t.app, tenant, (tx) =>
          appendAudit(tx, { actor: `w${i}`, action: 'x', target: { kind: 'k', id: `${i}` } }),
        ),
      ),
    )
    const seqs = await t.owner.query<{ seq: string }>(
      'select seq from audit_events where tenant_id = $1 order by seq',
      [tenant],
    )
    expect(seqs.rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(await verify(tenant)).toEqual({ ok: true, checked: 20, anchor: null })
  })

  it('keeps one chain per tenant', async () => {
    const [x, y] = [randomTenant(), randomTenant()]
    await append(x, 2)
    const [first] = await append(y, 1)
    expect(first?.seq).toBe(1)
    expect(first?.prevHash).toBe(GENESIS_HASH)
  })

  it('rolls back with the transaction it belongs to, leaving no gap', async () => {
    const tenant = randomTenant()
    await append(tenant, 1)
    await expect(
      withTenant(t.app, tenant, async (tx) => {
        await appendAudit(tx, { actor: 'a', action: 'x', target: { kind: 'k', id: '1' } })
        throw new Error('change failed')
      }),
    ).rejects.toThrow('change failed')
    const [next] = await append(tenant, 1)
    expect(next?.seq).toBe(2)
    expect(await verify(tenant)).toEqual({ ok: true, checked: 2, anchor: null })
  })
})

describe('the audit table', () => {
  it('refuses UPDATE, DELETE and TRUNCATE from the app role', async () => {
    const tenant = randomTenant()
    await append(tenant, 1)
    for (const statement of [
      `update audit_events set actor = 'mallory'`,
      `delete from audit_events where actor <> 'mallory'`,
    ]) {
      const error = await pgErrorOf(
        withTenant(t.app, tenant, (tx) => tx.db.execute(sql.raw(statement))),
      )
      expect(error.code, statement).toBe('42501')
    }
    const error = await pgErrorOf(t.app.pool.query('truncate audit_events'))
    expect(error.code).toBe('42501')
  })

  it('refuses UPDATE, DELETE and TRUNCATE from the owner too', async () => {
    const tenant = randomTenant()
    await append(tenant, 1)
    for (const statement of [
      `update audit_events set actor = 'mallory'`,
      'delete from audit_events',
      'truncate audit_events',
    ]) {
      const error = await pgErrorOf(t.owner.query(statement))
      expect(error.message, statement).toMatch(/append-only/)
    }
    expect(await verify(tenant)).toEqual({ ok: true, checked: 1, anchor: null })
  })
})

describe('verifyAudit', () => {
  it('accepts an empty chain', async () => {
    expect(await verify(randomTenant())).toEqual({ ok: true, checked: 0, anchor: null })
  })

  it('names the first edited event', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 5)
    await tamper('update audit_events set details = $1 where id = $2', [{ i: 99 }, events[2]?.id])
    expect(await verify(tenant)).toEqual({
      ok: false,
      checked: 3,
      anchor: null,
      problem: 'edited',
      firstBadSeq: 3,
      firstBadId: events[2]?.id,
    })
  })

  it('names the seq of a deleted event, and the event read in its place', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 5)
    await tamper('delete from audit_events where id = $1', [events[1]?.id])
    expect(await verify(tenant)).toEqual({
      ok: false,
      checked: 2,
      anchor: null,
      problem: 'gap',
      firstBadSeq: 2,
      firstBadId: events[2]?.id,
    })
  })

  it('names the first event when the first one was deleted', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 3)
    await tamper('delete from audit_events where id = $1', [events[0]?.id])
    expect(await verify(tenant)).toEqual({
      ok: false,
      checked: 1,
      anchor: null,
      problem: 'gap',
      firstBadSeq: 1,
      firstBadId: events[1]?.id,
    })
  })

  it('detects two swapped events', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 4)
    // Swap the positions of events 2 and 3 through a free seq value.
    await tamper(
      [
        'update audit_events set seq = -2 where tenant_id = $1 and seq = 2',
        'update audit_events set seq = 2 where tenant_id = $1 and seq = 3',
        'update audit_events set seq = 3 where tenant_id = $1 and seq = -2',
      ],
      [tenant],
    )
    expect(await verify(tenant)).toEqual({
      ok: false,
      checked: 2,
      anchor: null,
      problem: 'reordered',
      firstBadSeq: 2,
      firstBadId: events[2]?.id,
    })
  })

  it('names a re-hashed edit, since the next event still names the old hash', async () => {
    const tenant = randomTenant()
    const events = await append(tenant, 3)
    const edited = { ...(events[1] as AuditEvent), actor: 'mallory' }
    const { hash: _old, ...unhashed } = edited
    await tamper('update audit_events set actor = $1, hash = $2 where id = $3', [
      'mallory',
      auditHash(unhashed),
      edited.id,
    ])
    expect(await verify(tenant)).toEqual({
      ok: false,
      checked: 3,
      anchor: null,
      problem: 'edited',
      firstBadSeq: 2,
      firstBadId: edited.id,
    })
  })
})

describe('listAudit', () => {
  it('filters by action, actor, target and time, newest first, with a cursor', async () => {
    const tenant = randomTenant()
    const events = [...(await append(tenant, 3, 'graph.registered')), ...(await append(tenant, 2))]
    await withTenant(t.app, tenant, async (tx) => {
      const byAction = await listAudit(tx, { action: 'graph.registered' })
      expect(byAction.items.map((e) => e.seq)).toEqual([3, 2, 1])
      const byActor = await listAudit(tx, { actor: 'user-1' })
      expect(byActor.items.map((e) => e.seq)).toEqual([5, 2])
      const byTarget = await listAudit(tx, { targetId: 'run-0', action: 'run.started' })
      expect(byTarget.items.map((e) => e.seq)).toEqual([4])
      const since = new Date((events[3] as AuditEvent).at)
      const recent = await listAudit(tx, { since })
      expect(recent.items.every((e) => e.at >= since.toISOString())).toBe(true)
      const none = await listAudit(tx, { until: new Date((events[0] as AuditEvent).at) })
      expect(none.items).toEqual([])

      const first = await listAudit(tx, { limit: 2 })
      expect(first.items.map((e) => e.seq)).toEqual([5, 4])
      const second = await listAudit(tx, { limit: 2, cursor: first.nextCursor })
      expect(second.items.map((e) => e.seq)).toEqual([3, 2])
      const third = await listAudit(tx, { limit: 2, cursor: second.nextCursor })
      expect(third).toEqual({ items: [expect.objectContaining({ seq: 1 })], nextCursor: null })
    })
  })

  it('refuses a cursor it did not make', async () => {
    await expect(
      withTenant(t.app, randomTenant(), (tx) => listAudit(tx, { cursor: 'not-a-cursor' })),
    ).rejects.toMatchObject({ code: 'invalid-cursor' })
  })
})
