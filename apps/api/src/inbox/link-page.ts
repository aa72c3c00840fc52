import type { Decision } from '@weave/db'
import type { FastifyRequest } from 'fastify'
import { renderProblem } from '../http/render-problem.js'
import { auditContext } from '../routes/audit-context.js'
import type { ApprovalHookService } from '../services/approval-hook-service.js'
import { approvalPanel } from './approval-panel.js'
import type { FieldProblem } from './argument-fields.js'
import { html, type SafeHtml } from './html.js'
import type { InboxService, LinkedApproval } from './inbox-service.js'
import { page } from './layout.js'
import { REFUSALS, csrfFor, formDecision, isSameOriginForm, LinkForm } from './link-form.js'

/** A rendered page with its status and the headers it must carry. */
export interface RenderedPage {
  status: number
  body: string
  headers: Record<string, string>
}

/** What a link page's services are. */
export interface LinkPageDeps {
  inbox: InboxService
  approvalHooks: ApprovalHookService
  /** The largest request body, for problem texts. */
  bodyLimitBytes: number
  now?: () => Date
}

type Banner =
  { kind: 'ok'; text: string } | { kind: 'refused'; text: string; problems?: FieldProblem[] }

/**
 * An approval link's page (`GET /inbox/a/{token}`): the approval, and the decision forms while the
 * link can still decide. It changes nothing: only the form's POST decides, so a link scanner or
 * a chat unfurler that fetches the link cannot. The token is never written into the page (the
 * forms post to the page's own URL).
 */
export async function linkPage(
  deps: LinkPageDeps,
  request: FastifyRequest,
  token: string,
): Promise<RenderedPage> {
  const linked = await deps.inbox.linked(token)
  if (!linked) return refusedPage(404, 'approval-link-not-found')
  // A used or expired link shows nothing of the approval any more: a link that leaked later
  // (a forwarded mail, a chat log) discloses no arguments, names or comments.
  if (linked.usedAt !== null) return refusedPage(409, 'approval-link-used')
  if (linked.expiresAt.getTime() <= (deps.now?.() ?? new Date()).getTime()) {
    return refusedPage(410, 'approval-link-expired')
  }
  return renderLinked(deps, request, linked, null, 200)
}

/**
 * Applies a link form (`POST /inbox/a/{token}`): checks its CSRF value and origin, turns it into
 * a decision, and decides through the approval lifecycle with the material hash the page showed.
 * A refusal renders the page again with why, in words; nothing was recorded then.
 */
export async function postLinkForm(
  deps: LinkPageDeps,
  request: FastifyRequest,
  token: string,
  body: unknown,
): Promise<RenderedPage> {
  const fields = stringFields(body)
  if (!isSameOriginForm(request, fields.csrf)) return refusedPage(403, 'csrf')
  const linked = await deps.inbox.linked(token)
  if (!linked) return refusedPage(404, 'approval-link-not-found')
  const form = LinkForm.safeParse(fields)
  if (!form.success) {
    return renderLinked(
      deps,
      request,
      linked,
      { kind: 'refused', text: REFUSALS['validation-failed']! },
      400,
    )
  }
  const decision = formDecision(form.data, fields, linked.page)
  if ('problems' in decision) {
    const banner = {
      kind: 'refused' as const,
      text: REFUSALS['validation-failed']!,
      problems: decision.problems,
    }
    return renderLinked(deps, request, linked, banner, 400)
  }
  try {
    const result = await deps.approvalHooks.use(
      token,
      {
        decision: decision.decision,
        materialHash: decision.materialHash,
        ...(decision.comment === undefined ? {} : { comment: decision.comment }),
        ...(decision.input === undefined ? {} : { input: decision.input }),
      },
      auditContext(request),
    )
    const after = (await deps.inbox.linked(token)) ?? linked
    return renderLinked(
      deps,
      request,
      after,
      { kind: 'ok', text: recordedText(result.decision, result.status) },
      200,
    )
  } catch (err) {
    const problem = renderProblem(err, request, { bodyLimitBytes: deps.bodyLimitBytes })
    if (problem.isServerError) throw err
    const name = problem.body.type.slice(problem.body.type.lastIndexOf('/') + 1)
    const problems = (problem.body as { errors?: FieldProblem[] }).errors
    const banner: Banner = {
      kind: 'refused',
      text: REFUSALS[name] ?? problem.body.detail,
      ...(problems
        ? { problems: problems.map((p) => ({ ...p, path: p.path.replace(/^\/body\/input/, '') })) }
        : {}),
    }
    const after = (await deps.inbox.linked(token)) ?? linked
    return renderLinked(deps, request, after, banner, problem.body.status)
  }
}

function recordedText(decision: Decision, status: string): string {
  if (status === 'pending')
    return 'Your approval is recorded. The approval needs more approvals before the run continues.'
  if (status === 'approved')
    return 'Your approval is recorded: the approval is approved and the run continues.'
  if (decision === 'reject')
    return 'Your rejection is recorded: the approval is rejected and the run continues without it.'
  return `Your decision is recorded; the approval is ${status}.`
}

/** Why the link itself can no longer decide, or null while it can. */
function linkRefusal(linked: LinkedApproval, now: Date): { name: string; status: number } | null {
  const { approval } = linked.page
  if (linked.usedAt !== null) return { name: 'approval-link-used', status: 409 }
  if (linked.expiresAt.getTime() <= now.getTime())
    return { name: 'approval-link-expired', status: 410 }
  if (approval.status !== 'pending') return { name: 'approval-settled', status: 200 }
  if (approval.materialHash !== linked.materialHash)
    return { name: 'material-mismatch', status: 409 }
  return null
}

function renderLinked(
  deps: LinkPageDeps,
  request: FastifyRequest,
  linked: LinkedApproval,
  banner: Banner | null,
  status: number,
): RenderedPage {
  const now = deps.now?.() ?? new Date()
  const refusal = linkRefusal(linked, now)
  const headers: Record<string, string> = {}
  let controls = null
  if (refusal === null) {
    const csrf = csrfFor(request)
    if (csrf.setCookie) headers['set-cookie'] = csrf.setCookie
    controls = {
      decisions: linked.decision ? [linked.decision] : (['approve', 'reject'] as const),
      csrf: csrf.value,
      decidingAs: linked.recipient,
    }
  }
  // A decision just refused says why; otherwise a link that cannot decide says so once.
  const shown =
    banner ?? (refusal ? { kind: 'refused' as const, text: REFUSALS[refusal.name]! } : null)
  const body = page(
    { title: linked.page.approval.title, pageKind: 'link' },
    html`${shown ? bannerHtml(shown) : ''}${approvalPanel(linked.page, now, controls)}`,
  )
  return { status: banner ? status : (refusal?.status ?? status), body: body.text, headers }
}

function refusedPage(status: number, name: string): RenderedPage {
  const body = page(
    { title: 'Approval link' },
    html`<h1>Approval link</h1>
      ${bannerHtml({ kind: 'refused', text: REFUSALS[name]! })}`,
  )
  return { status, body: body.text, headers: {} }
}

function bannerHtml(banner: Banner): SafeHtml {
  if (banner.kind === 'ok') {
    return html`<div class="banner banner-ok" role="status"><p>${banner.text}</p></div>`
  }
  return html`<div class="banner banner-refused" role="alert">
    <p><strong>Not recorded.</strong> ${banner.text}</p>
    ${
      banner.problems?.length
        ? html`<ul>
            ${banner.problems.map((p) => html`<li><code>${p.path || '/'}</code> ${p.message}</li>`)}
          </ul>`
        : ''
    }
  </div>`
}

/** A parsed form body's string fields; anything else (repeated fields, objects) is dropped. */
function stringFields(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null) return {}
  const fields: Record<string, string> = {}
  for (const [key, value] of Object.entries(body))
    if (typeof value === 'string') fields[key] = value
  return fields
}
