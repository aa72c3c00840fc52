import { appendRunEvent, listAudit, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CreatedWebhook,
  DeliveryPage,
  RotatedSecret,
  WebhookPage,
} from '../src/schemas/webhooks.js'
import { randomTenant } from './support/database.js'
import { seedRun } from './support/fixtures.js'
import { expectJson, expectProblem } from './support/harness.js'
import { ALLOWED_HOST, createWebhookHarness, type WebhookHarness } from './support/webhook-app.js'

let h: WebhookHarness
const tenant = randomTenant()
const other = randomTenant()
let admin: string
let outsider: string
let reader: string
let manager: string

beforeAll(async () => {
  h = await createWebhookHarness('api_webhooks')
  admin = await h.token(tenant, 'alice')
  outsider = await h.token(other, 'mallory')
  reader = await h.token(tenant, 'bob', ['runs:read', 'approvals:read'])
  manager = await h.token(tenant, 'carol', ['webhooks:manage'])
})
afterAll(async () => h?.close())

const URL_OK = `http://${ALLOWED_HOST}/hooks`

const register = (body: unknown, token = admin) =>
  h.callWithWebhooks({ method: 'POST', url: '/v1/webhooks', token, body })

const auditOf = (action: string) =>
  withTenant(h.database, tenant, async (tx) => (await listAudit(tx, { action })).items)

describe('POST /v1/webhooks', () => {
  it('registers a webhook and shows its secret once, never again', async () => {
    const response = await register({ url: URL_OK, events: ['run.completed', 'run.completed'] })
    const created = expectJson(response, 201, CreatedWebhook)
    expect(response.headers.location).toBe(`/v1/webhooks/${created.id}`)
    expect(created).toMatchObject({
      url: URL_OK,
      events: ['run.completed'],
      scopes: [],
      createdBy: 'alice',
    })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)

    const list = await h.callWithWebhooks({ method: 'GET', url: '/v1/webhooks', token: admin })
    const page = expectJson(list, 200, WebhookPage)
    expect(page.items.map((w) => w.id)).toContain(created.id)
    expect(list.body).not.toContain(created.secret.slice(6))
    expect(list.body).not.toContain('secret')

    const [audit] = (await auditOf('webhook.created')).filter((e) => e.target.id === created.id)
    expect(audit).toMatchObject({ actor: 'alice', target: { kind: 'webhook', id: created.id } })
    expect(JSON.stringify(audit)).not.toContain(created.secret.slice(6))
    const stored = await withTenant(h.database, tenant, (tx) =>
      tx.db.execute<{ secret_ciphertext: string }>(
        `select secret_ciphertext from webhooks where id = '${created.id}'`,
      ),
    )
    expect(stored.rows[0]?.secret_ciphertext).not.toContain(created.secret.slice(6))
  })

  it.each([
    ['loopback', 'http://127.0.0.1/hooks'],
    ['private', 'http://10.1.2.3/hooks'],
    ['link-local', 'http://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'http://[::1]:8080/hooks'],
    ['unresolvable', 'https://hooks.invalid/weave'],
  ])('refuses a %s URL the allow list does not unlock, storing nothing', async (_kind, url) => {
    const before = (await auditOf('webhook.created')).length
    const problem = expectProblem(
      await register({ url, events: ['run.failed'] }),
      400,
      'webhook-url-refused',
    )
    expect(problem.errors?.[0]?.path).toBe('/body/url')
    expect((await auditOf('webhook.created')).length).toBe(before)
  })

  it('refuses bodies that are not a webhook', async () => {
    for (const body of [
      { url: URL_OK, events: [] },
      { url: URL_OK, events: ['run.exploded'] },
      { url: 'ftp://example.com/x', events: ['run.failed'] },
      { url: URL_OK, events: ['run.failed'], secret: 'mine' },
      { url: URL_OK, events: ['run.failed'], scopes: ['webhooks:manage'] },
      { url: URL_OK, events: ['run.failed'], scopes: 'approvals:decide' },
    ]) {
      expectProblem(await register(body), 400)
    }
  })

  it('needs the webhooks:manage scope', async () => {
    expectProblem(await register({ url: URL_OK, events: ['run.failed'] }, reader), 403)
    const list = await h.callWithWebhooks({ method: 'GET', url: '/v1/webhooks', token: reader })
    expectProblem(list, 403)
  })

  it('answers 503 when the server has no secrets key', async () => {
    const response = await h.call({
      method: 'POST',
      url: '/v1/webhooks',
      token: admin,
      body: { url: URL_OK, events: ['run.failed'] },
    })
    expectProblem(response, 503)
  })
})

describe('a webhook holding approvals:decide', () => {
  const body = { url: URL_OK, events: ['approval.requested'], scopes: ['approvals:decide'] }

  it('is registered by a caller who may decide approvals', async () => {
    const created = expectJson(await register(body), 201, CreatedWebhook)
    expect(created.scopes).toEqual(['approvals:decide'])
    const [audit] = (await auditOf('webhook.created')).filter((e) => e.target.id === created.id)
    expect(audit?.details).toMatchObject({ scopes: ['approvals:decide'] })
  })

  it('is refused to a caller holding webhooks:manage alone: 403, nothing stored', async () => {
    const before = (await auditOf('webhook.created')).length
    const response = await register(body, manager)
    const problem = expectProblem(response, 403)
    expect(problem.detail).toContain('approvals:decide')
    expect(response.headers['www-authenticate']).toContain('scope="approvals:decide"')
    expect((await auditOf('webhook.created')).length).toBe(before)
    // The same caller registers a webhook without the scope.
    expectJson(await register({ url: URL_OK, events: ['run.failed'] }, manager), 201)
  })
})

describe('POST /v1/webhooks/{id}/rotate-secret', () => {
  const rotate = (id: string, body?: unknown, token = admin) =>
    h.callWithWebhooks({
      method: 'POST',
      url: `/v1/webhooks/${id}/rotate-secret`,
      token,
      ...(body === undefined ? {} : { body }),
    })
  const registered = async () =>
    expectJson(await register({ url: URL_OK, events: ['run.failed'] }), 201, CreatedWebhook)

  it('shows a new secret once and keeps the old one for 24 h by default, audited', async () => {
    const created = await registered()
    const before = Date.now()
    const rotated = expectJson(await rotate(created.id), 200, RotatedSecret)
    expect(rotated.id).toBe(created.id)
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(rotated.secret).not.toBe(created.secret)
    const until = Date.parse(rotated.previousSecretExpiresAt!)
    expect(until).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 5_000)
    expect(until).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 5_000)

    const [audit] = (await auditOf('webhook.secret-rotated')).filter(
      (e) => e.target.id === created.id,
    )
    expect(audit).toMatchObject({
      actor: 'alice',
      details: { graceSeconds: 86_400, previousSecretExpiresAt: rotated.previousSecretExpiresAt },
    })
    const logged = JSON.stringify(audit)
    for (const secret of [created.secret, rotated.secret]) {
      expect(logged).not.toContain(secret.slice(6))
    }
    const list = await h.callWithWebhooks({ method: 'GET', url: '/v1/webhooks', token: admin })
    expect(list.body).not.toContain(rotated.secret.slice(6))
  })

  it('takes a grace of 0 to 7 days', async () => {
    const { id } = await registered()
    const now = expectJson(await rotate(id, { graceSeconds: 0 }), 200, RotatedSecret)
    expect(now.previousSecretExpiresAt).toBeNull()
    const week = expectJson(await rotate(id, { graceSeconds: 604_800 }), 200, RotatedSecret)
    expect(Date.parse(week.previousSecretExpiresAt!)).toBeGreaterThan(Date.now() + 6 * 86_400_000)
    for (const body of [
      { graceSeconds: 604_801 },
      { graceSeconds: -1 },
      { graceSeconds: 1.5 },
      { graceSeconds: '60' },
      { grace: 60 },
    ]) {
      expectProblem(await rotate(id, body), 400)
    }
  })

  it('answers 404 for another tenant’s or a deleted webhook, 403 without the scope', async () => {
    const { id } = await registered()
    expectProblem(await rotate(id, undefined, outsider), 404, 'webhook-not-found')
    expectProblem(await rotate(id, undefined, reader), 403)
    expectProblem(await rotate('not-a-uuid'), 404, 'webhook-not-found')
    await h.callWithWebhooks({ method: 'DELETE', url: `/v1/webhooks/${id}`, token: admin })
    expectProblem(await rotate(id), 404, 'webhook-not-found')
    expect((await auditOf('webhook.secret-rotated')).filter((e) => e.target.id === id)).toEqual([])
  })

  it('answers 503 when the server has no secrets key', async () => {
    const { id } = await registered()
    const response = await h.call({
      method: 'POST',
      url: `/v1/webhooks/${id}/rotate-secret`,
      token: admin,
    })
    expectProblem(response, 503)
  })
})

describe('a webhook of another tenant', () => {
  it('is not listed, deleted or read: 404', async () => {
    const { id } = expectJson(await register({ url: URL_OK, events: ['run.failed'] }), 201)
    const theirs = await h.callWithWebhooks({ method: 'GET', url: '/v1/webhooks', token: outsider })
    expect(expectJson(theirs, 200, WebhookPage).items).toEqual([])
    for (const call of [
      { method: 'DELETE' as const, url: `/v1/webhooks/${id}` },
      { method: 'GET' as const, url: `/v1/webhooks/${id}/deliveries` },
    ]) {
      expectProblem(
        await h.callWithWebhooks({ ...call, token: outsider }),
        404,
        'webhook-not-found',
      )
    }
    const mine = await h.callWithWebhooks({ method: 'GET', url: '/v1/webhooks', token: admin })
    expect(expectJson(mine, 200, WebhookPage).items.map((w) => w.id)).toContain(id)
  })
})

describe('DELETE /v1/webhooks/{id}', () => {
  it('deletes once, with an audit event, then answers 404', async () => {
    const { id } = expectJson(await register({ url: URL_OK, events: ['run.failed'] }), 201)
    const first = await h.callWithWebhooks({
      method: 'DELETE',
      url: `/v1/webhooks/${id}`,
      token: admin,
    })
    expect(first.statusCode).toBe(204)
    expect(first.body).toBe('')
    const again = await h.callWithWebhooks({
      method: 'DELETE',
      url: `/v1/webhooks/${id}`,
      token: admin,
    })
    expectProblem(again, 404, 'webhook-not-found')
    expect((await auditOf('webhook.deleted')).filter((e) => e.target.id === id)).toHaveLength(1)
    const list = await h.callWithWebhooks({ method: 'GET', url: '/v1/webhooks', token: admin })
    expect(expectJson(list, 200, WebhookPage).items.map((w) => w.id)).not.toContain(id)
  })
})

describe('GET /v1/webhooks/{id}/deliveries', () => {
  it('lists the deliveries of subscribed events, without their payloads', async () => {
    const { id } = expectJson(await register({ url: URL_OK, events: ['run.cancelled'] }), 201)
    const run = await seedRun(h.database, tenant, { graph: 'deliveries' })
    await withTenant(h.database, tenant, async (tx) => {
      await appendRunEvent(tx, run.id, 'run.queued', { graph: 'deliveries', version: 1 })
      await appendRunEvent(tx, run.id, 'run.cancelled', { by: 'alice' })
    })
    const response = await h.callWithWebhooks({
      method: 'GET',
      url: `/v1/webhooks/${id}/deliveries`,
      token: admin,
    })
    const page = expectJson(response, 200, DeliveryPage)
    expect(page.items).toEqual([
      {
        id: expect.any(String),
        webhookId: id,
        eventType: 'run.cancelled',
        runId: run.id,
        eventSeq: 2,
        eventId: null,
        status: 'pending',
        attempts: [],
        nextAttemptAt: expect.stringMatching(/Z$/),
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      },
    ])
    expect(response.body).not.toContain('payload')
  })
})
