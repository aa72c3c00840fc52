import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ApprovalLinkError,
  approvalLinkTokens,
  consumeApprovalToken,
  createWebhook,
  findApprovalToken,
  openApproval,
  webhookRecipient,
  withTenant,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase
const secretsKey = randomBytes(32)

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
    const { webhook } = await createWebhook(tx, secretsKey, {
      url: 'https://hooks.example/approvals',
      events: ['approval.requested'],
      scopes: ['approvals:decide'],
      createdBy: 'ops',
    })
    const input = {
      approvalId: approval.id,
      materialHash: approval.materialHash,
      webhookId: webhook.id,
      expiresAt,
      secretsKey,
    }
    const tokens = await approvalLinkTokens(tx, input)
    return { approval, webhook, tokens, input }
  })
}

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (err: ApprovalLinkError) => err.code,
  )

describe('approval link tokens', () => {
  it('keeps only hashes and ciphertexts, and finds a token across tenants by its text', async () => {
    const tenant = randomTenant()
    const { approval, webhook, tokens } = await issue(tenant)
    expect(tokens.approve).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(tokens.reject).not.toBe(tokens.approve)
    const stored = await t.owner.query<{ row: string }>(
      'select row_to_json(approval_tokens)::text as row from approval_tokens where approval_id = $1',
      [approval.id],
    )
    expect(stored.rows).toHaveLength(2)
    for (const { row } of stored.rows) {
      expect(row).not.toContain(tokens.approve)
      expect(row).not.toContain(tokens.reject)
    }
    const found = await findApprovalToken(t.app, tokens.reject)
    expect(found).toMatchObject({
      tenantId: tenant,
      approvalId: approval.id,
      decision: 'reject',
      materialHash: approval.materialHash,
      recipient: webhookRecipient(webhook.id),
      usedAt: null,
    })
  })

  it('gives every later delivery to the same webhook the same links', async () => {
    const tenant = randomTenant()
    const { tokens, input } = await issue(tenant)
    const again = await withTenant(t.app, tenant, (tx) => approvalLinkTokens(tx, input))
    expect(again).toEqual(tokens)
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

  it('is visible only to its own tenant under row-level security', async () => {
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
