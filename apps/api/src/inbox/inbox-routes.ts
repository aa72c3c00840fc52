import { readFile } from 'node:fs/promises'
import { approverRefusal } from '@weave/db'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { ApiServices } from '../services/api-services.js'
import { approvalPanel } from './approval-panel.js'
import { html } from './html.js'
import { STATIC_PREFIX } from './layout.js'
import { linkPage, postLinkForm, type RenderedPage } from './link-page.js'
import { approvalShell, listFragment, listShell } from './pages.js'

/**
 * The inbox pages' CSP: scripts, styles and fetches only from this origin, forms post only here,
 * no inline script or style, no frames, no plugins.
 */
export const INBOX_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
].join('; ')

const HTML = 'text/html; charset=utf-8'
const LIST_LIMIT = 100

const ListQuery = z.object({
  graph: z.string().max(200).optional(),
  run: z.string().max(64).optional(),
  mine: z.enum(['1', 'true', 'on']).optional(),
})
const IdParams = z.object({ id: z.string().max(64) })
const TokenParams = z.object({ token: z.string().max(200) })

// The page files, read once: they are part of the code, not content.
async function asset(name: string): Promise<string> {
  return readFile(new URL(`./static/${name}`, import.meta.url), 'utf8')
}

/**
 * `/inbox`: the approval inbox's pages. Bearer-token pages (`/inbox`, `/inbox/approvals/{id}`)
 * are shells that inbox.js fills from `/inbox/fragments/...` with the token kept in the tab's
 * sessionStorage, and decides through `POST /v1/approvals/{id}/decision`; an approval link
 * (`/inbox/a/{token}`) is a whole page whose forms work without JavaScript. None is in the
 * OpenAPI document: they answer HTML.
 */
export const inboxRoutes: FastifyPluginAsyncZod<ApiServices> = async (app, services) => {
  const files = {
    'inbox.js': { type: 'text/javascript; charset=utf-8', body: await asset('inbox.js') },
    'inbox.css': { type: 'text/css; charset=utf-8', body: await asset('inbox.css') },
  }
  const linkDeps = {
    inbox: services.inbox,
    approvalHooks: services.approvalHooks,
    bodyLimitBytes: app.initialConfig.bodyLimit ?? 1024 * 1024,
  }
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', INBOX_CSP)
    return payload
  })
  // Link forms post as browsers do without JavaScript; only this plugin's routes accept it.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)))
    },
  )
  const send = (reply: FastifyReply, rendered: RenderedPage) =>
    reply.code(rendered.status).headers(rendered.headers).type(HTML).send(rendered.body)

  app.get(
    `${STATIC_PREFIX}/:name`,
    { schema: { hide: true, params: z.object({ name: z.enum(['inbox.js', 'inbox.css']) }) } },
    async (request, reply) => {
      const file = files[request.params.name]
      return reply.type(file.type).header('cache-control', 'no-cache').send(file.body)
    },
  )

  app.get('/inbox', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { graph, run, mine } = request.query
    return reply.type(HTML).send(listShell({ graph, runId: run, isMine: mine !== undefined }).text)
  })

  app.get(
    '/inbox/approvals/:id',
    { schema: { hide: true, params: IdParams } },
    async (_request, reply) => reply.type(HTML).send(approvalShell().text),
  )

  app.get(
    '/inbox/fragments/pending',
    {
      onRequest: app.requireScope('approvals:read'),
      schema: { hide: true, querystring: ListQuery },
    },
    async (request, reply) => {
      const { graph, run, mine } = request.query
      const filters = {
        graph: graph || undefined,
        runId: run || undefined,
        isMine: mine !== undefined,
      }
      const found = await services.inbox.pending(
        request.tenant,
        request.principal,
        filters,
        LIST_LIMIT,
      )
      return reply.type(HTML).send(listFragment(found.items, found.isTruncated, new Date()).text)
    },
  )

  app.get(
    '/inbox/fragments/approvals/:id',
    { onRequest: app.requireScope('approvals:read'), schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const { principal } = request
      const model = await services.inbox.approvalPage(request.tenant, request.params.id)
      const refusal = principal.scopes.has('approvals:decide')
        ? approverRefusal(model.approval, model.run.createdBy, principal.subject, [
            ...principal.scopes,
          ])
        : 'no-scope'
      const hasDecided = model.approval.decisions.some((d) => d.by === principal.subject)
      const canDecide = refusal === null && !hasDecided
      const note =
        model.approval.status !== 'pending'
          ? ''
          : hasDecided
            ? 'You have already decided this approval.'
            : refusal === 'no-scope'
              ? 'Your token cannot decide approvals (it lacks approvals:decide).'
              : refusal === 'separation-of-duties'
                ? 'You started this run, so you may not decide its approvals.'
                : refusal === 'not-an-approver'
                  ? 'You are not one of this approval’s approvers.'
                  : ''
      const panel = approvalPanel(
        model,
        new Date(),
        canDecide ? { decisions: ['approve', 'reject'], decidingAs: principal.subject } : null,
      )
      return reply
        .type(HTML)
        .send(html`${note ? html`<p class="notice">${note}</p>` : ''}${panel}`.text)
    },
  )

  app.get(
    '/inbox/a/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => send(reply, await linkPage(linkDeps, request, request.params.token)),
  )

  app.post(
    '/inbox/a/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) =>
      send(reply, await postLinkForm(linkDeps, request, request.params.token, request.body)),
  )
}
