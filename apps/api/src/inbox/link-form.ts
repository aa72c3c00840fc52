import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Decision } from '@weave/db'
import type { Json } from '@weave/kernel'
import type { FastifyRequest } from 'fastify'
import { z } from 'zod'
import { editFields, toolCallOf } from './approval-panel.js'
import { argumentsFromForm, type FieldProblem } from './argument-fields.js'
import type { ApprovalPageModel } from './inbox-service.js'

/** The cookie of the link form's double-submitted CSRF value; sent back only to link pages. */
export const CSRF_COOKIE = 'weave_inbox_csrf'
const CSRF_VALUE = /^[A-Za-z0-9_-]{43}$/

/**
 * The CSRF value a link page's forms carry: the request's own cookie when it has a well-formed
 * one (so two open tabs both stay valid), else a new random one with the `Set-Cookie` that
 * stores it. The cookie is HttpOnly and SameSite=Strict: another site can neither read it nor
 * make the browser send it.
 */
export function csrfFor(request: FastifyRequest): { value: string; setCookie: string | null } {
  const existing = cookieOf(request, CSRF_COOKIE)
  if (existing !== undefined && CSRF_VALUE.test(existing))
    return { value: existing, setCookie: null }
  const value = randomBytes(32).toString('base64url')
  const secure = request.protocol === 'https' ? '; Secure' : ''
  return {
    value,
    setCookie: `${CSRF_COOKIE}=${value}; Path=/inbox/a/; HttpOnly; SameSite=Strict${secure}`,
  }
}

/**
 * Whether a link form's POST comes from the page this server rendered: the form's CSRF field
 * equals the cookie (compared in constant time), and what the browser says of the request's
 * origin (Origin, Sec-Fetch-Site), when it says anything, is this origin.
 */
export function isSameOriginForm(request: FastifyRequest, field: string | undefined): boolean {
  const cookie = cookieOf(request, CSRF_COOKIE)
  if (cookie === undefined || field === undefined || !CSRF_VALUE.test(cookie)) return false
  const a = Buffer.from(cookie)
  const b = Buffer.from(field)
  if (a.length !== b.length || !timingSafeEqual(a, b)) return false
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false
  // Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` even for its own form;
  // Sec-Fetch-Site then says whether it was.
  const origin = request.headers.origin
  if (origin === 'null') return site === 'same-origin'
  return origin === undefined || origin === `${request.protocol}://${request.host}`
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const equals = part.indexOf('=')
    if (equals !== -1 && part.slice(0, equals).trim() === name) return part.slice(equals + 1).trim()
  }
  return undefined
}

/** A link form as posted: its controls' values (arguments are `arg.<name>` fields). */
export const LinkForm = z.looseObject({
  csrf: z.string().max(100).optional(),
  decision: z.enum(['approve', 'reject', 'approve-edited']),
  materialHash: z.string().regex(/^[0-9a-f]{64}$/),
  comment: z.string().max(2000).optional(),
})
/** A link form as posted. */
export type LinkForm = z.infer<typeof LinkForm>

/** The decision a link form asks for, ready for the approval lifecycle. */
export interface FormDecision {
  decision: Decision
  materialHash: string
  comment: string | undefined
  input: { arguments: Record<string, Json> } | undefined
}

/**
 * The decision a valid link form sends: an "approve with these arguments" form becomes an
 * approval whose input carries the edited arguments (the tool's schema is checked by the
 * decision itself).
 */
export function formDecision(
  form: LinkForm,
  fields: Record<string, string>,
  model: ApprovalPageModel,
): FormDecision | { problems: FieldProblem[] } {
  const comment = form.comment?.trim() ? form.comment : undefined
  if (form.decision !== 'approve-edited') {
    return { decision: form.decision, materialHash: form.materialHash, comment, input: undefined }
  }
  const call = toolCallOf(model.approval)
  if (!call)
    return { problems: [{ path: '/decision', message: 'this approval has no call to edit' }] }
  const edited = argumentsFromForm(editFields(model, call), fields)
  if ('problems' in edited) return edited
  return {
    decision: 'approve',
    materialHash: form.materialHash,
    comment,
    input: { arguments: edited.arguments },
  }
}

/** What a refused decision (by problem type) tells the person, in words. */
export const REFUSALS: Record<string, string> = {
  'material-mismatch':
    'What this approval shows has changed since this page was loaded, so your decision was not recorded. Reload the page, check the request again, then decide.',
  'approval-link-used':
    'This link has already been used. A link decides once; nothing more was recorded.',
  'approval-link-expired':
    'This link has expired, so it can no longer decide. Ask for a new link if the approval is still open.',
  'approval-link-not-found': 'This approval link is not valid. Check that it was copied whole.',
  'approval-link-decision': 'This link cannot send that decision.',
  'approval-settled': 'This approval is already settled; nothing is left to decide.',
  'approval-expired': 'This approval expired before a decision was recorded.',
  'already-decided': 'You have already decided this approval.',
  'separation-of-duties': 'The person who started the run cannot decide its approvals.',
  'not-an-approver': 'You are not one of this approval’s approvers.',
  'validation-failed': 'The decision was not recorded: some values are not valid.',
  csrf: 'This form could not be verified: it may come from another site or an old tab. Reload the page and decide again.',
}
