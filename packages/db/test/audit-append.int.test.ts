import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '@weave/kernel'
import { appendAudit, auditHash, GENESIS_HASH, listAudit, withTenant } from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant } from './test-database.js'

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
