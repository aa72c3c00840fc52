import { appendRunEvent, listAudit, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreatedWebhook, DeliveryPage, WebhookPage } from '../src/schemas/webhooks.js'
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

beforeAll(async () => {
  h = await createWebhookHarness('api_webhooks')
  admin = await h.token(tenant, 'alice')
  outsider = await h.token(other, 'mallory')
  reader = await h.token(tenant, 'bob', ['runs:read', 'approvals:read'])
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
    expect(created).toMatchObject({ url: URL_OK, events: ['run.completed'], createdBy: 'alice' })
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
    expect(problem.errors?.[0]?.path).toBe('/url')
    expect((await auditOf('webhook.created')).length).toBe(before)
  })

  it('refuses bodies that are not a webhook', async () => {
    for (const body of [
      { url: URL_OK, events: [] },
      { url: URL_OK, events: ['run.exploded'] },
      { url: 'ftp://example.com/x', events: ['run.failed'] },
      { url: URL_OK, events: ['run.failed'], secret: 'mine' },
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
      await appendRunEvent(tx, run.id, 'run.queued', {})
      await appendRunEvent(tx, run.id, 'run.cancelled', { reason: 'test' })
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
