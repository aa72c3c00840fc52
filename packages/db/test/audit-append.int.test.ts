import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '@weave/kernel'
import { sql } from 'drizzle-orm'
import {
  type AuditEvent,
  appendAudit,
  appendAuditAtCommit,
  auditHash,
  GENESIS_HASH,
  listAudit,
  verifyAudit,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, pgErrorOf, randomTenant } from './test-database.js'

// The database fills in an event's seq and previous hash under the chain's lock and hashes the
// canonical JSON it was sent (weave_append_audit). Its hash must be the one auditHash computes
// for any details, or the chain would not verify.

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_audit_append')
})

afterAll(async () => {
  await t?.drop()
})

const TRICKY: Json[] = [
  { note: 'plain' },
  {
    quote: 'say "hi"\\n',
    unicode: 'zoë 日本 🚀',
    control: '\u0001\t',
    nested: { b: [1, 2.5, -0], a: null },
  },
  { big: 12345678901234, tiny: 1e-7, flag: false, list: [] },
  // Strings that look like the markers the call uses must stay as they are.
  { look: 'seq-00000000000000000000000000000000', other: 'prev-0' },
]

describe('appendAudit', () => {
  it('chains events with any details so that auditHash verifies every one', async () => {
    const tenant = randomTenant()
    const appended = []
    for (const details of TRICKY) {
      appended.push(
        await withTenant(t.app, tenant, (tx) =>
          appendAudit(tx, {
            actor: 'alice',
            action: 'test.tricky',
            target: { kind: 'run', id: 'r1' },
            details,
            requestId: 'req-1',
            ip: '127.0.0.1',
          }),
        ),
      )
    }
    const page = await withTenant(t.app, tenant, (tx) => listAudit(tx, { limit: 50 }))
    const stored = [...page.items].reverse()
    expect(stored).toEqual(appended)
    stored.forEach((event, i) => {
      expect(event.seq).toBe(i + 1)
      expect(event.prevHash).toBe(i === 0 ? GENESIS_HASH : stored[i - 1]!.hash)
      const { hash, ...unhashed } = event
      expect(auditHash(unhashed)).toBe(hash)
    })
    expect(stored.map((e) => e.details)).toEqual(JSON.parse(JSON.stringify(TRICKY)))
  })

  it('forms one gap-free chain under concurrent appends of one tenant', async () => {
    const tenant = randomTenant()
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        withTenant(t.app, tenant, (tx) =>
          appendAudit(tx, {
            actor: 'bob',
            action: 'test.race',
            target: { kind: 'run', id: `r${i}` },
          }),
        ),
      ),
    )
    const page = await withTenant(t.app, tenant, (tx) => listAudit(tx, { limit: 50 }))
    const chain = [...page.items].reverse()
    expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    chain.forEach((event, i) => {
      expect(event.prevHash).toBe(i === 0 ? GENESIS_HASH : chain[i - 1]!.hash)
      const { hash, ...unhashed } = event
      expect(auditHash(unhashed)).toBe(hash)
    })
  })
})

async function chainOf(tenant: string): Promise<AuditEvent[]> {
  const page = await withTenant(t.app, tenant, (tx) => listAudit(tx, { limit: 100 }))
  return [...page.items].reverse()
}

function expectVerifiableChain(chain: AuditEvent[]): void {
  expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: chain.length }, (_, i) => i + 1))
  chain.forEach((event, i) => {
    expect(event.prevHash).toBe(i === 0 ? GENESIS_HASH : chain[i - 1]!.hash)
    const { hash, ...unhashed } = event
    expect(auditHash(unhashed)).toBe(hash)
  })
}

// appendAuditAtCommit leaves the event in audit_pending; a deferred trigger chains it inside the
// COMMIT (migration 0021), so the tenant's lock is not held between the append and the commit.
describe('appendAuditAtCommit', () => {
  it('chains events with any details at commit so that auditHash and verifyAudit accept them', async () => {
    const tenant = randomTenant()
    const ids: string[] = []
    for (const details of TRICKY) {
      const { id } = await withTenant(t.app, tenant, async (tx) => {
        const appended = await appendAuditAtCommit(tx, {
          actor: 'alice',
          action: 'test.tricky',
          target: { kind: 'run', id: 'r1' },
          details,
          requestId: 'req-1',
          ip: '127.0.0.1',
        })
        // Not in the chain before the commit: it gets its seq and hash there.
        expect((await listAudit(tx, { limit: 50 })).items.map((e) => e.id)).not.toContain(
          appended.id,
        )
        return appended
      })
      ids.push(id)
    }
    const chain = await chainOf(tenant)
    expect(chain.map((e) => e.id)).toEqual(ids)
    expectVerifiableChain(chain)
    expect(chain.map((e) => e.details)).toEqual(JSON.parse(JSON.stringify(TRICKY)))
    expect(chain.map((e) => [e.actor, e.requestId, e.ip, e.tenant])).toEqual(
      TRICKY.map(() => ['alice', 'req-1', '127.0.0.1', tenant]),
    )
    const verified = await withTenant(t.app, tenant, (tx) => verifyAudit(tx))
    expect(verified).toMatchObject({ ok: true, checked: TRICKY.length })
    // Nothing is left waiting once chained.
    const pending = await t.owner.query(
      'select count(*)::int as n from audit_pending where tenant_id = $1',
      [tenant],
    )
    expect(pending.rows[0].n).toBe(0)
  })

  it('does not hold the chain lock before the commit: another transaction appends and commits meanwhile', async () => {
    const tenant = randomTenant()
    let releaseFirst!: () => void
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve))
    let firstAppended!: () => void
    const firstHasAppended = new Promise<void>((resolve) => (firstAppended = resolve))
    const first = withTenant(t.app, tenant, async (tx) => {
      await appendAuditAtCommit(tx, {
        actor: 'a',
        action: 'test.first',
        target: { kind: 'run', id: 'r1' },
      })
      firstAppended()
      await firstMayCommit
    })
    await firstHasAppended
    // With the lock taken at the append, this commit would wait for the open transaction above;
    // lock_timeout turns that wait into an error instead of a hang.
    await withTenant(t.app, tenant, async (tx) => {
      await tx.db.execute(sql`set local lock_timeout = '5s'`)
      await appendAuditAtCommit(tx, {
        actor: 'b',
        action: 'test.second',
        target: { kind: 'run', id: 'r2' },
      })
    })
    releaseFirst()
    await first
    const chain = await chainOf(tenant)
    expect(chain.map((e) => e.action)).toEqual(['test.second', 'test.first'])
    expectVerifiableChain(chain)
  })

  it('forms one gap-free chain from concurrent transactions, mixed with immediate appends, keeping each transaction’s order and none rolled back', async () => {
    const tenant = randomTenant()
    const writers = Array.from({ length: 16 }, (_, i) =>
      withTenant(t.app, tenant, async (tx) => {
        if (i % 4 === 0) {
          await appendAudit(tx, {
            actor: `w${i}`,
            action: 'test.now',
            target: { kind: 'run', id: `r${i}` },
          })
        }
        await appendAuditAtCommit(tx, {
          actor: `w${i}`,
          action: 'test.one',
          target: { kind: 'run', id: `r${i}` },
        })
        // Other work between the appends and the commit, as a real transaction does.
        await tx.db.execute(sql`select pg_sleep(0.01)`)
        await appendAuditAtCommit(tx, {
          actor: `w${i}`,
          action: 'test.two',
          target: { kind: 'run', id: `r${i}` },
        })
        if (i % 5 === 0) throw new Error('rolled back')
      }).catch((err: Error) => {
        if (err.message !== 'rolled back') throw err
      }),
    )
    await Promise.all(writers)
    const chain = await chainOf(tenant)
    expectVerifiableChain(chain)
    const committed = Array.from({ length: 16 }, (_, i) => i).filter((i) => i % 5 !== 0)
    const expectedCount = committed.reduce((n, i) => n + (i % 4 === 0 ? 3 : 2), 0)
    expect(chain).toHaveLength(expectedCount)
    for (const i of committed) {
      const own = chain.filter((e) => e.actor === `w${i}`)
      // The deferred events keep their order and follow each other: the trigger chains them
      // one after the other under the lock inside one commit.
      const one = chain.findIndex((e) => e.actor === `w${i}` && e.action === 'test.one')
      expect(chain[one + 1]).toMatchObject({ actor: `w${i}`, action: 'test.two' })
      expect(own.map((e) => e.action)).toEqual(
        i % 4 === 0 ? ['test.now', 'test.one', 'test.two'] : ['test.one', 'test.two'],
      )
    }
    expect(chain.some((e) => e.actor === 'w0' || e.actor === 'w5')).toBe(false)
    const verified = await withTenant(t.app, tenant, (tx) => verifyAudit(tx))
    expect(verified).toMatchObject({ ok: true, checked: expectedCount })
  })

  it('lets the app role neither change nor remove a pending event', async () => {
    const tenant = randomTenant()
    for (const change of [
      sql`delete from audit_pending`,
      sql`update audit_pending set actor = 'mallory'`,
    ]) {
      const error = await pgErrorOf(
        withTenant(t.app, tenant, async (tx) => {
          await appendAuditAtCommit(tx, {
            actor: 'c',
            action: 'test.hidden',
            target: { kind: 'run', id: 'r1' },
          })
          await tx.db.execute(change)
        }),
      )
      expect(error.code).toBe('42501')
    }
    expect(await chainOf(tenant)).toEqual([])
  })
})
