import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '@weave/kernel'
import { sql } from 'drizzle-orm'
import {
  type AuditEvent,
  appendAudit,
  appendAuditAtCommit,
  auditHash,
  chainAllPendingAudit,
  chainPendingAudit,
  GENESIS_HASH,
  listAudit,
  pendingAuditInsert,
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

// appendAuditAtCommit leaves the event in audit_pending; once the transaction has committed,
// withTenant calls weave_chain_audit (migration 0037), which chains every pending event of the
// tenant under its lock: the lock is held neither between the append and the commit nor through
// the commit.
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
        // Not in the chain before the commit: it gets its seq and hash after it.
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
      // A transaction's events keep their order and follow each other: the chain call orders
      // the pending events by transaction, then by position.
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

  it('commits a change with a pending event while the chain lock is held, and chains it once the lock is free', async () => {
    const tenant = randomTenant()
    const holder = await t.owner.connect()
    try {
      // Another chainer of the tenant, holding the lock as long as it likes.
      await holder.query('begin')
      await holder.query(`select pg_advisory_xact_lock(hashtext('audit:' || $1::text))`, [tenant])
      let committed = false
      const change = withTenant(t.app, tenant, async (tx) => {
        await appendAuditAtCommit(tx, {
          actor: 'a',
          action: 'test.locked-out',
          target: { kind: 'run', id: 'r1' },
        })
      }).then(() => {
        committed = true
      })
      // The commit does not wait for the lock: the pending event is visible to others...
      await expect
        .poll(async () => {
          const { rows } = await t.owner.query<{ n: number }>(
            'select count(*)::int as n from audit_pending where tenant_id = $1',
            [tenant],
          )
          return rows[0]!.n
        })
        .toBe(1)
      // ...while the call chaining it after the commit waits for the lock.
      expect(committed).toBe(false)
      await holder.query('commit')
      await change
      const chain = await chainOf(tenant)
      expect(chain.map((e) => e.action)).toEqual(['test.locked-out'])
      expectVerifiableChain(chain)
    } finally {
      await holder.query('rollback').catch(() => undefined)
      holder.release()
    }
  })

  it('leaves a rolled-back transaction with nothing to chain, and runs none of its after-commit work', async () => {
    const tenant = randomTenant()
    let ran = false
    await expect(
      withTenant(t.app, tenant, async (tx) => {
        await appendAuditAtCommit(tx, {
          actor: 'a',
          action: 'test.gone',
          target: { kind: 'run', id: 'r' },
        })
        tx.afterCommit(async () => {
          ran = true
        })
        throw new Error('changed my mind')
      }),
    ).rejects.toThrow('changed my mind')
    expect(ran).toBe(false)
    expect(await chainOf(tenant)).toEqual([])
  })

  it('chains events whose writer stopped after its commit: the next chain call of the tenant or the sweep of every tenant', async () => {
    const [one, two] = [randomTenant(), randomTenant()]
    // A writer that commits its event and stops before its chain call, as a crash would.
    const commitWithoutChaining = (tenant: string, action: string) =>
      withTenant(t.app, tenant, async (tx) => {
        const pending = pendingAuditInsert(tenant, {
          actor: 'a',
          action,
          target: { kind: 'run', id: 'r' },
        })
        await tx.db.execute(pending.insert)
      })
    await commitWithoutChaining(one, 'test.stranded-one')
    await commitWithoutChaining(two, 'test.stranded-two')
    expect(await chainOf(one)).toEqual([])
    await chainPendingAudit(t.app.pool, one)
    expect((await chainOf(one)).map((e) => e.action)).toEqual(['test.stranded-one'])
    expect(await chainOf(two)).toEqual([])
    expect(await chainAllPendingAudit(t.app.pool)).toBeGreaterThanOrEqual(1)
    const chain = await chainOf(two)
    expect(chain.map((e) => e.action)).toEqual(['test.stranded-two'])
    expectVerifiableChain(chain)
  })

  it('serves the chain requests of one tenant that arrive together with at most two calls', async () => {
    const tenant = randomTenant()
    const pool = t.app.pool
    const calls: string[] = []
    const query = pool.query.bind(pool)
    pool.query = ((config: unknown, ...rest: unknown[]) => {
      const name = (config as { name?: string }).name
      if (name === 'weave_chain_audit') calls.push(name)
      return (query as (...args: unknown[]) => unknown)(config, ...rest)
    }) as typeof pool.query
    try {
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          withTenant(t.app, tenant, (tx) =>
            appendAuditAtCommit(tx, {
              actor: `w${i}`,
              action: 'test.together',
              target: { kind: 'run', id: `r${i}` },
            }),
          ),
        ),
      )
    } finally {
      pool.query = query
    }
    // Every request made while a call is in flight shares the one call after it.
    expect(calls.length).toBeLessThan(12)
    const chain = await chainOf(tenant)
    expect(chain).toHaveLength(12)
    expectVerifiableChain(chain)
  })

  it('refuses a chain call for a tenant other than the transaction’s own', async () => {
    const error = await pgErrorOf(
      withTenant(t.app, randomTenant(), (tx) =>
        tx.db.execute(sql`select weave_chain_audit(${randomTenant()})`),
      ),
    )
    expect(error.code).toBe('42501')
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
