import { findApprovalToken, getApproval, withTenant } from '@weave/db'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, type App } from '../src/app.js'
import { INBOX_CSP } from '../src/inbox/inbox-routes.js'
import { resourceRoutes } from '../src/routes/index.js'
import { captureLog, testConfig } from './support.js'
import { randomTenant } from './support/database.js'
import { seedApproval, seedApprovalLinks, type SeedApprovalOptions } from './support/fixtures.js'
import { createHarness, type Harness } from './support/harness.js'

let h: Harness
// The API as the other tests build it, but logging every request at trace level into `log`.
let app: App
let log: ReturnType<typeof captureLog>
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_inbox')
  log = captureLog()
  app = buildApp({
    config: testConfig({ WEAVE_RATE_LIMIT_PER_MINUTE: '0' }),
    log: log.log,
    services: h.services,
    routes: resourceRoutes,
  })
  await app.ready()
})
afterAll(async () => {
  await app?.close()
  await h?.close()
})

async function linked(options: SeedApprovalOptions = {}) {
  const seeded = await seedApproval(h.database, tenant, { separationOfDuties: true, ...options })
  const issued = await app.inject({
    method: 'POST',
    url: `/v1/approvals/${seeded.approvalId}/links`,
    headers: { authorization: `Bearer ${await h.token(tenant, 'notifier')}` },
    payload: { recipient: 'bob' },
  })
  expect(issued.statusCode, issued.body).toBe(201)
  const url: string = issued.json().url
  return { ...seeded, token: url.slice(url.lastIndexOf('/') + 1), path: new URL(url).pathname }
}

/** The CSRF cookie a link page set, and the form's hidden field of the same value. */
function csrfOf(page: LightMyRequestResponse): { cookie: string; field: string } {
  const setCookie = String(page.headers['set-cookie'])
  const cookie = setCookie.slice(0, setCookie.indexOf(';'))
  const field = /name="csrf"\s+value="([^"]+)"/.exec(page.body)?.[1] ?? ''
  return { cookie, field }
}

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  })

function expectPage(response: LightMyRequestResponse, status: number): string {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(response.headers['content-security-policy']).toBe(INBOX_CSP)
  expect(response.headers['x-frame-options']).toBe('DENY')
  // No inline script: every script element loads a file of this origin.
  expect(response.body).not.toMatch(/<script(?![^>]*\ssrc="\/inbox\/static\/)/)
  expect(response.body).not.toMatch(/\son[a-z]+=/i)
  return response.body
}

describe('the approval link page', () => {
  it('shows the approval on GET without deciding or using the link, and never echoes the token', async () => {
    const { approvalId, token, path, materialHash } = await linked()
    const page = expectPage(await app.inject({ method: 'GET', url: path }), 200)
    expect(page).toContain('Charge 20?')
    expect(page).toMatch(new RegExp(`name="materialHash"\\s+value="${materialHash}"`))
    expect(page).toContain('You decide as <strong>bob</strong>')
    expect(page).not.toContain(token)
    expect(page).not.toMatch(/<form[^>]*action=/)
    expect(String(page)).toContain('yes: starter, who started the run, may not decide')
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.status).toBe('pending')
    expect((await findApprovalToken(h.database, token))?.usedAt).toBeNull()
  })

  it('approves through a plain form post with its CSRF value, once', async () => {
    const { approvalId, path, materialHash } = await linked()
    const page = await app.inject({ method: 'GET', url: path })
    const { cookie, field } = csrfOf(page)
    expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/)
    const form = { csrf: field, materialHash, decision: 'approve', comment: 'looks right' }
    // A browser's own form under `Referrer-Policy: no-referrer`: `Origin: null`, same-origin fetch.
    const sameSite = { cookie, origin: 'null', 'sec-fetch-site': 'same-origin' }
    const done = expectPage(await post(path, form, sameSite), 200)
    expect(done).toContain('Your approval is recorded: the approval is approved')
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.decisions.map((d) => [d.subject, d.decision, d.comment])).toEqual([
      ['bob', 'approve', 'looks right'],
    ])
    const again = expectPage(await post(path, form, { cookie }), 409)
    expect(again).toContain('This link has already been used')
    const used = expectPage(await app.inject({ method: 'GET', url: path }), 409)
    expect(used).toContain('This link has already been used')
    // A used link shows nothing of the approval any more.
    expect(used).not.toContain(materialHash.slice(0, 12))
    expect(used).not.toContain('What is asked')
  })

  it('refuses a post without the CSRF cookie, or from another origin, and changes nothing', async () => {
    const { approvalId, token, path, materialHash } = await linked()
    const { cookie, field } = csrfOf(await app.inject({ method: 'GET', url: path }))
    const form = { csrf: field, materialHash, decision: 'approve' }
    expect(expectPage(await post(path, form), 403)).toContain('could not be verified')
    expectPage(await post(path, form, { cookie, origin: 'https://evil.example' }), 403)
    expectPage(await post(path, form, { cookie, 'sec-fetch-site': 'cross-site' }), 403)
    expectPage(await post(path, { ...form, csrf: 'x'.repeat(43) }, { cookie }), 403)
    expectPage(await post(path, form, { cookie, origin: 'null' }), 403)
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.decisions).toEqual([])
    expect((await findApprovalToken(h.database, token))?.usedAt).toBeNull()
  })

  it('refuses a stale page: a decision on other material than the page showed', async () => {
    const { approvalId, token, path } = await linked()
    const { cookie, field } = csrfOf(await app.inject({ method: 'GET', url: path }))
    const form = { csrf: field, materialHash: 'a'.repeat(64), decision: 'reject' }
    const refused = expectPage(await post(path, form, { cookie }), 409)
    expect(refused).toContain('has changed since this page was loaded')
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.status).toBe('pending')
    expect((await findApprovalToken(h.database, token))?.usedAt).toBeNull()
  })

  it("offers a webhook's reject link only its own decision, and refuses another", async () => {
    const { approvalId, materialHash } = await seedApproval(h.database, tenant)
    const tokens = await seedApprovalLinks(h.database, tenant, { approvalId, materialHash })
    const path = `/inbox/a/${tokens.reject}`
    const page = await app.inject({ method: 'GET', url: path })
    const body = expectPage(page, 200)
    expect(body).toContain('value="reject"')
    expect(body).not.toContain('value="approve"')
    const { cookie, field } = csrfOf(page)
    const form = { csrf: field, materialHash, decision: 'approve' }
    expect(expectPage(await post(path, form, { cookie }), 400)).toContain(
      'This link cannot send that decision.',
    )
    const rejected = await post(path, { ...form, decision: 'reject' }, { cookie })
    expect(expectPage(rejected, 200)).toContain('Your rejection is recorded')
  })

  it('says an unknown link is not valid (404)', async () => {
    const page = expectPage(await app.inject({ method: 'GET', url: '/inbox/a/nope' }), 404)
    expect(page).toContain('This approval link is not valid')
  })

  it('never writes a link token or a bearer token into the log', async () => {
    const { token, path, materialHash } = await linked()
    const bearer = await h.token(tenant, 'bob')
    const page = await app.inject({ method: 'GET', url: `${path}?x=1` })
    const { cookie, field } = csrfOf(page)
    await post(path, { csrf: field, materialHash, decision: 'approve' }, { cookie })
    await app.inject({
      method: 'GET',
      url: '/inbox/fragments/pending',
      headers: { authorization: `Bearer ${bearer}` },
    })
    const lines = log.lines()
    expect(lines.some((l) => l.includes('/inbox/a/[redacted]'))).toBe(true)
    for (const secret of [token, bearer, field]) {
      expect(lines.filter((l) => l.includes(secret))).toEqual([])
    }
  })
})

describe('the bearer-token inbox', () => {
  it('serves the pages as shells with their script and style, outside the OpenAPI document', async () => {
    const list = expectPage(await app.inject({ method: 'GET', url: '/inbox?graph=pricing' }), 200)
    expect(list).toContain('<script src="/inbox/static/inbox.js" defer></script>')
    expect(list).toMatch(/id="graph"\s+name="graph"\s+value="pricing"/)
    const script = await app.inject({ method: 'GET', url: '/inbox/static/inbox.js' })
    expect(script.statusCode).toBe(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    const doc = await app.inject({ method: 'GET', url: '/openapi.json' })
    expect(Object.keys(doc.json().paths).filter((p) => p.startsWith('/inbox'))).toEqual([])
  })

  it('lists pending approvals newest first, by graph, run and "assigned to me"', async () => {
    const other = randomTenant()
    const first = await seedApproval(h.database, other, { approvers: { subjects: ['carol'] } })
    const second = await seedApproval(h.database, other, {
      createdBy: 'carol',
      separationOfDuties: true,
    })
    const carol = await h.token(other, 'carol')
    const fragment = async (query: string) => {
      const response = await app.inject({
        method: 'GET',
        url: `/inbox/fragments/pending${query}`,
        headers: { authorization: `Bearer ${carol}` },
      })
      expect(response.statusCode, response.body).toBe(200)
      return [...response.body.matchAll(/data-approval-id="([^"]+)"/g)].map((m) => m[1])
    }
    expect(await fragment('')).toEqual([second.approvalId, first.approvalId])
    expect(await fragment(`?run=${first.run.id}`)).toEqual([first.approvalId])
    expect(await fragment('?graph=other')).toEqual([])
    expect(await fragment('?graph=pricing')).toHaveLength(2)
    // Carol is named on the first; she started the second, which separates duties.
    expect(await fragment('?mine=1')).toEqual([first.approvalId])
    const anonymous = await app.inject({ method: 'GET', url: '/inbox/fragments/pending' })
    expect(anonymous.statusCode).toBe(401)
  })

  it("renders one approval with the viewer's controls, or says why there are none", async () => {
    const { approvalId } = await seedApproval(h.database, tenant, {
      createdBy: 'alice',
      separationOfDuties: true,
    })
    const fragmentFor = async (subject: string) => {
      const response = await app.inject({
        method: 'GET',
        url: `/inbox/fragments/approvals/${approvalId}`,
        headers: { authorization: `Bearer ${await h.token(tenant, subject)}` },
      })
      expect(response.statusCode).toBe(200)
      return response.body
    }
    const bob = await fragmentFor('bob')
    expect(bob).toContain('value="approve"')
    expect(bob).not.toContain('name="csrf"')
    const alice = await fragmentFor('alice')
    expect(alice).toContain('You started this run, so you may not decide its approvals.')
    expect(alice).not.toContain('value="approve"')
  })
})
