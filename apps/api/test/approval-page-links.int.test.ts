import { findApprovalToken, getApproval, listAudit, withTenant } from '@weave/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApprovalHookResult } from '../src/schemas/approval-hooks.js'
import { ApprovalLinkView } from '../src/schemas/approvals.js'
import { randomTenant } from './support/database.js'
import { seedApproval, type SeedApprovalOptions } from './support/fixtures.js'
import { createHarness, expectJson, expectProblem, type Harness } from './support/harness.js'

let h: Harness
const tenant = randomTenant()

beforeAll(async () => {
  h = await createHarness('api_page_links')
})
afterAll(async () => h?.close())

const issue = async (approvalId: string, body: unknown) =>
  h.call({
    method: 'POST',
    url: `/v1/approvals/${approvalId}/links`,
    token: await h.token(tenant, 'notifier'),
    body,
  })

const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1)

async function linked(options: SeedApprovalOptions = {}, recipient = 'bob') {
  const seeded = await seedApproval(h.database, tenant, { separationOfDuties: true, ...options })
  const link = expectJson(await issue(seeded.approvalId, { recipient }), 201, ApprovalLinkView)
  return { ...seeded, link, token: tokenOf(link.url) }
}

describe('POST /v1/approvals/{id}/links', () => {
  it('issues a single-use page link to a named approver, audited without its token', async () => {
    const { approvalId, link, token } = await linked({ approvers: { subjects: ['bob'] } })
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/inbox\/a\/[A-Za-z0-9_-]{43}$/)
    expect(link.recipient).toBe('bob')
    const found = await findApprovalToken(h.database, token)
    expect(found).toMatchObject({ approvalId, recipient: 'bob', decision: null, usedAt: null })
    const audit = await withTenant(h.database, tenant, (tx) => listAudit(tx, { limit: 200 }))
    const issued = audit.items.filter((e) => e.action === 'approval.link-issued')
    expect(issued.at(-1)).toMatchObject({
      actor: 'notifier',
      target: { kind: 'approval', id: approvalId },
      details: { recipient: 'bob', tokenId: found?.id },
    })
    expect(JSON.stringify(audit.items)).not.toContain(token)
  })

  it('never issues a link to a subject the approval refuses', async () => {
    const starter = await seedApproval(h.database, tenant, {
      createdBy: 'alice',
      separationOfDuties: true,
    })
    expectProblem(
      await issue(starter.approvalId, { recipient: 'alice' }),
      403,
      'separation-of-duties',
    )
    const named = await seedApproval(h.database, tenant, { approvers: { subjects: ['carol'] } })
    expectProblem(await issue(named.approvalId, { recipient: 'bob' }), 403, 'not-an-approver')
    const scoped = await seedApproval(h.database, tenant, { approvers: { scopes: ['finance'] } })
    expectProblem(await issue(scoped.approvalId, { recipient: 'bob' }), 403, 'not-an-approver')
  })

  it('lets neither the run starter issue links under separation of duties, nor made-up names fill a quorum', async () => {
    // Whoever issues a link can open it: the starter would decide as bob.
    const own = await seedApproval(h.database, tenant, {
      createdBy: 'notifier',
      separationOfDuties: true,
    })
    expectProblem(await issue(own.approvalId, { recipient: 'bob' }), 403, 'separation-of-duties')
    // Two people must approve: only the subjects the approval names may get links.
    const quorum = await seedApproval(h.database, tenant, {
      required: 2,
      approvers: { subjects: ['bob', 'carol'] },
    })
    expectJson(await issue(quorum.approvalId, { recipient: 'bob' }), 201, ApprovalLinkView)
    expectProblem(await issue(quorum.approvalId, { recipient: 'mallory' }), 403, 'not-an-approver')
    const open = await seedApproval(h.database, tenant, { required: 2 })
    expectProblem(await issue(open.approvalId, { recipient: 'anyone' }), 403, 'not-an-approver')
  })

  it('refuses a settled approval (409) and a token without the approvals:link scope (403)', async () => {
    const { approvalId } = await seedApproval(h.database, tenant)
    const bob = await h.token(tenant, 'bob')
    await h.call({
      method: 'POST',
      url: `/v1/approvals/${approvalId}/decision`,
      token: bob,
      body: { decision: 'approve' },
    })
    expectProblem(await issue(approvalId, { recipient: 'carol' }), 409, 'approval-settled')
    const decider = await h.token(tenant, 'dave', ['approvals:decide'])
    const refused = await h.call({
      method: 'POST',
      url: `/v1/approvals/${approvalId}/links`,
      token: decider,
      body: { recipient: 'carol' },
    })
    expectProblem(refused, 403)
  })
})

describe('deciding with a page link', () => {
  it('decides as its recipient with the decision the recipient chose, once', async () => {
    const { approvalId, materialHash, token } = await linked()
    const result = await h.services.approvalHooks.use(
      token,
      { comment: 'fine', decision: 'reject', materialHash },
      { requestId: 'req-page-link', ip: '127.0.0.1' },
    )
    expect(ApprovalHookResult.parse(result)).toEqual({
      approvalId,
      decision: 'reject',
      status: 'rejected',
    })
    const approval = await withTenant(h.database, tenant, (tx) => getApproval(tx, approvalId))
    expect(approval?.decisions.map((d) => [d.subject, d.decision, d.comment])).toEqual([
      ['bob', 'reject', 'fine'],
    ])
    await expect(
      h.services.approvalHooks.use(
        token,
        { decision: 'reject', materialHash },
        { requestId: 'r', ip: '127.0.0.1' },
      ),
    ).rejects.toMatchObject({ code: 'approval-link-used' })
  })

  it('refuses a decision on material other than the link was made for, leaving it unused', async () => {
    const { token } = await linked()
    await expect(
      h.services.approvalHooks.use(
        token,
        { decision: 'approve', materialHash: 'f'.repeat(64) },
        { requestId: 'r', ip: '127.0.0.1' },
      ),
    ).rejects.toMatchObject({ code: 'material-mismatch' })
    expect((await findApprovalToken(h.database, token))?.usedAt).toBeNull()
  })

  it('is refused by the approveUrl endpoint, which carries no decision (400)', async () => {
    const { token } = await linked()
    const response = await h.call({ method: 'POST', url: `/v1/approval-hooks/${token}` })
    expectProblem(response, 400, 'approval-link-decision')
    expect((await findApprovalToken(h.database, token))?.usedAt).toBeNull()
  })
})
