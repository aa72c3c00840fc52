import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  approvalLinkTokens,
  consumeApprovalToken,
  createWebhook,
  deleteWebhook,
  findApprovalToken,
  getWebhook,
  openApproval,
  readWebhookSecret,
  readWebhookSigningSecrets,
  rotateWebhookSecret,
  withTenant,
  type Database,
} from '@weave/db'
import { type TestDatabase, createTestDatabase, randomTenant, seedRunIn } from './test-database.js'

let t: TestDatabase
const key = randomBytes(32)

beforeAll(async () => {
  t = await createTestDatabase('weave_db_rotation')
})

afterAll(async () => {
  await t?.drop()
})

const register = (database: Database, tenant: string) =>
  withTenant(database, tenant, (tx) =>
    createWebhook(tx, key, {
      url: 'https://h.test/',
      events: ['approval.requested'],
      scopes: ['approvals:decide'],
      createdBy: 'admin',
    }),
  )

const rotate = (tenant: string, id: string, graceSeconds: number) =>
  withTenant(t.app, tenant, (tx) => rotateWebhookSecret(tx, key, id, { graceSeconds }))

describe('rotateWebhookSecret', () => {
  it('signs with the new and the replaced secret during the grace, then with the new only', async () => {
    const tenant = randomTenant()
    const { webhook, secret: old } = await register(t.app, tenant)
    const before = Date.now()
    const rotated = await rotate(tenant, webhook.id, 3600)
    expect(rotated?.secret).toMatch(/^whsec_/)
    expect(rotated?.secret).not.toBe(old)
    const stored = (await withTenant(t.app, tenant, (tx) => getWebhook(tx, webhook.id)))!
    expect(readWebhookSecret(key, stored)).toBe(rotated!.secret)
    expect(stored.previousSecretCiphertext).not.toContain(old.slice(6))
    const until = stored.previousSecretExpiresAt!
    expect(until.getTime()).toBeGreaterThanOrEqual(before + 3600_000 - 5_000)
    expect(until.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000 + 5_000)

    expect(readWebhookSigningSecrets(key, stored, new Date())).toEqual([rotated!.secret, old])
    expect(readWebhookSigningSecrets(key, stored, until)).toEqual([rotated!.secret])
  })

  it('drops the replaced secret at once with no grace', async () => {
    const tenant = randomTenant()
    const { webhook } = await register(t.app, tenant)
    const rotated = await rotate(tenant, webhook.id, 0)
    expect(rotated?.webhook).toMatchObject({
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
    })
    expect(readWebhookSigningSecrets(key, rotated!.webhook, new Date())).toEqual([rotated!.secret])
  })

  it('keeps only the secret the latest rotation replaced', async () => {
    const tenant = randomTenant()
    const { webhook } = await register(t.app, tenant)
    const first = await rotate(tenant, webhook.id, 3600)
    const second = await rotate(tenant, webhook.id, 3600)
    expect(readWebhookSigningSecrets(key, second!.webhook, new Date())).toEqual([
      second!.secret,
      first!.secret,
    ])
  })

  it('rotates nothing of another tenant, nor a deleted webhook', async () => {
    const [tenant, other] = [randomTenant(), randomTenant()]
    const { webhook, secret } = await register(t.app, tenant)
    expect(await rotate(other, webhook.id, 60)).toBeNull()
    expect(await rotate(tenant, 'not-a-uuid', 60)).toBeNull()
    const stored = await withTenant(t.app, tenant, (tx) => getWebhook(tx, webhook.id))
    expect(readWebhookSecret(key, stored!)).toBe(secret)
    await withTenant(t.app, tenant, (tx) => deleteWebhook(tx, webhook.id))
    expect(await rotate(tenant, webhook.id, 60)).toBeNull()
  })
})

describe('deleteWebhook', () => {
  it('expires the unused approval links the webhook was sent', async () => {
    const tenant = randomTenant()
    const run = await seedRunIn(t.app, tenant)
    const { webhook } = await register(t.app, tenant)
    const tokens = await withTenant(t.app, tenant, async (tx) => {
      const { approval } = await openApproval(tx, {
        runId: run.id,
        step: 'a',
        seq: 1,
        title: 'Go?',
      })
      return approvalLinkTokens(tx, {
        approvalId: approval.id,
        materialHash: approval.materialHash,
        webhookId: webhook.id,
        expiresAt: new Date(Date.now() + 3600_000),
        secretsKey: key,
      })
    })
    await withTenant(t.app, tenant, (tx) => deleteWebhook(tx, webhook.id))
    const found = await findApprovalToken(t.app, tokens.approve)
    expect(found!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now())
    await expect(
      withTenant(t.app, tenant, (tx) => consumeApprovalToken(tx, found!.id)),
    ).rejects.toMatchObject({ code: 'approval-link-expired' })
  })
})
