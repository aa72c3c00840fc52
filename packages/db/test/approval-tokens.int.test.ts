import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ApprovalLinkError,
  consumeApprovalToken,
  createApprovalTokens,
  findApprovalToken,
  openApproval,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase

beforeAll(async () => {
  t = await createTestDatabase('weave_db_tokens')
})

afterAll(async () => {
  await t?.drop()
})

async function issue(tenant: string, expiresAt = new Date(Date.now() + 60_000)) {
  const run = await seedRunIn(t.app, tenant)
  return withTenant(t.app, tenant, async (tx) => {
    const { approval } = await openApproval(tx, { runId: run.id, step: 'a', seq: 1, title: 'Go?' })
    const tokens = await createApprovalTokens(tx, {
      approvalId: approval.id,
      materialHash: approval.materialHash,
      recipient: `approval-link:${approval.id}`,
      expiresAt,
    })
    return { approval, tokens }
  })
}

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (err: ApprovalLinkError) => err.code,
  )

describe('approval tokens', () => {
  it('stores only hashes and finds a token across tenants by its text', async () => {
    const tenant = randomTenant()
    const { approval, tokens } = await issue(tenant)
    expect(tokens.approve).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(tokens.reject).not.toBe(tokens.approve)
    const stored = await t.owner.query<{ token_hash: string }>(
      'select token_hash from approval_tokens where approval_id = $1',
      [approval.id],
    )
    expect(stored.rows.map((r) => r.token_hash)).not.toContain(tokens.approve)
    const found = await findApprovalToken(t.app, tokens.reject)
    expect(found).toMatchObject({
      tenantId: tenant,
      approvalId: approval.id,
      decision: 'reject',
      materialHash: approval.materialHash,
      recipient: `approval-link:${approval.id}`,
      usedAt: null,
    })
  })

  it('finds nothing for an altered or unknown token', async () => {
    const { tokens } = await issue(randomTenant())
    const last = tokens.approve.at(-1) === 'A' ? 'B' : 'A'
    expect(await findApprovalToken(t.app, tokens.approve.slice(0, -1) + last)).toBeNull()
    expect(await findApprovalToken(t.app, '')).toBeNull()
  })

  it('is consumed once; a second use is refused', async () => {
    const tenant = randomTenant()
    const { tokens } = await issue(tenant)
    const found = (await findApprovalToken(t.app, tokens.approve))!
    const used = await withTenant(t.app, tenant, (tx) => consumeApprovalToken(tx, found.id))
    expect(used.usedAt).toBeInstanceOf(Date)
    expect(
      await codeOf(withTenant(t.app, tenant, (tx) => consumeApprovalToken(tx, found.id))),
    ).toBe('approval-link-used')
  })

  it('refuses an expired token, and a token of another tenant', async () => {
    const tenant = randomTenant()
    const { tokens } = await issue(tenant, new Date(Date.now() - 1000))
    const found = (await findApprovalToken(t.app, tokens.approve))!
    expect(
      await codeOf(withTenant(t.app, tenant, (tx) => consumeApprovalToken(tx, found.id))),
    ).toBe('approval-link-expired')
    expect(
      await codeOf(withTenant(t.app, randomTenant(), (tx) => consumeApprovalToken(tx, found.id))),
    ).toBe('approval-link-not-found')
  })

  it('shows the app role token rows of its own tenant only', async () => {
    const tenant = randomTenant()
    await issue(tenant)
    const count = (tenantId: string) =>
      withTenant(t.app, tenantId, (tx) =>
        tx.db.execute<{ n: number }>('select count(*)::int as n from approval_tokens'),
      )
    expect((await count(tenant)).rows[0]).toEqual({ n: 2 })
    expect((await count(randomTenant())).rows[0]).toEqual({ n: 0 })
  })
})
