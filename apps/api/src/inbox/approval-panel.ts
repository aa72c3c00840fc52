import type { Decision } from '@weave/db'
import type { Json } from '@weave/kernel'
import type { ApprovalView } from '../schemas/approvals.js'
import {
  argumentFields,
  changedArguments,
  renderArgumentFields,
  type ArgumentField,
} from './argument-fields.js'
import { html, type SafeHtml } from './html.js'
import type { ApprovalPageModel } from './inbox-service.js'

/** An agent's tool call awaiting approval, as its approval's details carry it. */
export interface ToolCall {
  tool: string
  arguments: Record<string, Json>
  callId: string | undefined
  assistantMessage: string | undefined
  /** What the rule lets an approver do with the call (accept, edit, respond, ignore). */
  allow: ReadonlySet<string>
}

const EVERY_ACTION: ReadonlySet<string> = new Set(['accept', 'edit', 'respond', 'ignore'])

/** The decision controls a page offers, or none (read only). */
export interface PanelControls {
  /** The decisions the viewer may send: both, or the one a webhook's link is bound to. */
  decisions: readonly Decision[]
  /** The CSRF field of a form posted without JavaScript (approval links). */
  csrf?: string | undefined
  /** The subject the decision is recorded as, when the page knows it (a link's recipient). */
  decidingAs?: string | undefined
}

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The tool call an approval asks about, when its details are an agent's call. */
export function toolCallOf(approval: Pick<ApprovalView, 'details'>): ToolCall | null {
  const { details } = approval
  if (!isObject(details) || typeof details.tool !== 'string' || !isObject(details.arguments)) {
    return null
  }
  return {
    tool: details.tool,
    arguments: details.arguments,
    callId: typeof details.callId === 'string' ? details.callId : undefined,
    assistantMessage:
      typeof details.assistantMessage === 'string' ? details.assistantMessage : undefined,
    allow: Array.isArray(details.allow)
      ? new Set(details.allow.filter((a): a is string => typeof a === 'string'))
      : EVERY_ACTION,
  }
}

/** The fields an edit of the call's arguments offers, from the approval's input schema. */
export function editFields(model: ApprovalPageModel, call: ToolCall): ArgumentField[] {
  const schema = model.inputSchema
  const argumentsSchema =
    isObject(schema) && isObject(schema.properties) ? (schema.properties.arguments ?? null) : null
  return argumentFields(argumentsSchema, call.arguments)
}

/** One approval's page: what is asked, by which run, who decides, and the controls allowed. */
export function approvalPanel(
  model: ApprovalPageModel,
  now: Date,
  controls: PanelControls | null,
): SafeHtml {
  const { approval } = model
  const call = toolCallOf(approval)
  return html`<article
    class="approval"
    aria-labelledby="approval-title"
    data-status="${approval.status}"
  >
    <h1 id="approval-title">${approval.title}</h1>
    <p class="status status-${approval.status}">
      <span class="label">Status:</span> ${statusText(approval.status)}
    </p>
    <section aria-labelledby="asked-heading">
      <h2 id="asked-heading">What is asked</h2>
      ${call ? toolCallSection(call) : detailsSection(approval.details)}
    </section>
    ${runSection(model)} ${rulesSection(model, now, call)}
    ${controls && approval.status === 'pending' && controls.decisions.length > 0 ? controlsSection(model, call, controls) : ''}
  </article>`
}

function statusText(status: ApprovalView['status']): string {
  return {
    pending: 'waiting for a decision',
    approved: 'approved',
    rejected: 'rejected',
    expired: 'expired without a decision',
    cancelled: 'cancelled (the run was cancelled)',
  }[status]
}

function toolCallSection(call: ToolCall): SafeHtml {
  return html`<p>
      The agent wants to call the tool <code class="tool">${call.tool}</code> with these arguments.
      On approval exactly this call runs, unless you change its arguments below.
    </p>
    ${argumentsTable(call.arguments, 'The call’s arguments')}
    ${
      call.assistantMessage
        ? html`<figure class="assistant">
            <blockquote>${call.assistantMessage}</blockquote>
            <figcaption>
              What the model wrote with the
              call${call.callId ? html` (call <code>${call.callId}</code>)` : ''}
            </figcaption>
          </figure>`
        : ''
    }`
}

function argumentsTable(args: Record<string, Json>, caption: string): SafeHtml {
  return html`<table class="args">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Argument</th>
        <th scope="col">Value</th>
      </tr>
    </thead>
    <tbody>
      ${Object.entries(args).map(
        ([name, value]) =>
          html`<tr>
            <th scope="row">${name}</th>
            <td>${jsonValue(value)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`
}

function detailsSection(details: unknown): SafeHtml {
  if (details === null || details === undefined)
    return html`<p>The step shows no details besides its title.</p>`
  return html`<div class="details">${jsonValue(details as Json)}</div>`
}

/** A JSON value as readable markup: objects as term lists, arrays as lists, text as text. */
function jsonValue(value: Json): SafeHtml {
  if (isObject(value)) {
    const entries = Object.entries(value)
    if (entries.length === 0) return html`<code>{}</code>`
    return html`<dl class="json">
      ${entries.map(
        ([k, v]) =>
          html`<dt>${k}</dt>
            <dd>${jsonValue(v)}</dd>`,
      )}
    </dl>`
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<code>[]</code>`
    return html`<ol class="json">
      ${value.map((v) => html`<li>${jsonValue(v)}</li>`)}
    </ol>`
  }
  if (typeof value === 'string') return html`<span class="text">${value}</span>`
  return html`<code>${JSON.stringify(value)}</code>`
}

function runSection(model: ApprovalPageModel): SafeHtml {
  const { run, path } = model
  return html`<section aria-labelledby="run-heading">
    <h2 id="run-heading">The run</h2>
    <dl class="facts">
      <dt>Graph</dt>
      <dd><code>${run.graph}</code>, version ${run.version}</dd>
      <dt>Run</dt>
      <dd><code>${run.id}</code> (${run.status})</dd>
      <dt>Started by</dt>
      <dd>${run.createdBy}, <time datetime="${run.createdAt}">${timeText(run.createdAt)}</time></dd>
      <dt>Step asking</dt>
      <dd><code>${model.approval.step}</code></dd>
    </dl>
    <h3>Path so far</h3>
    ${
      path.length === 0
        ? html`<p>No step has finished yet.</p>`
        : html`<ol class="path">
            ${path.map((c) => html`<li><code>${c.lastStep}</code> <span class="path-status">${pathStatus(c.status)}</span></li>`)}
          </ol>`
    }
  </section>`
}

function pathStatus(status: string): string {
  return status === 'step_done' ? 'done' : status === 'yielded' ? 'waiting' : status
}

function rulesSection(model: ApprovalPageModel, now: Date, call: ToolCall | null): SafeHtml {
  const { approval, run } = model
  const approvals = approval.decisions.filter((d) => d.decision === 'approve').length
  const { subjects, scopes } = approval.approvers
  const named = [
    ...(subjects ?? []).map((s) => html`<code>${s}</code>`),
    ...(scopes ?? []).map((s) => html`anyone with scope <code>${s}</code>`),
  ]
  return html`<section aria-labelledby="rules-heading">
    <h2 id="rules-heading">Who decides</h2>
    <dl class="facts">
      <dt>Approvals needed</dt>
      <dd>${approval.required} from different people; ${approvals} so far</dd>
      <dt>Separation of duties</dt>
      <dd>
        ${approval.separationOfDuties ? html`yes: ${run.createdBy}, who started the run, may not decide` : 'no'}
      </dd>
      <dt>Approvers</dt>
      <dd>
        ${named.length === 0 ? 'anyone who may decide approvals' : named.map((n, i) => html`${i > 0 ? ', ' : ''}${n}`)}
      </dd>
      <dt>Time left</dt>
      <dd>${timeLeft(approval.expiresAt, now)}</dd>
    </dl>
    <h3>Decisions so far</h3>
    ${
      approval.decisions.length === 0
        ? html`<p>None yet.</p>`
        : html`<ul class="decisions">
            ${approval.decisions.map((d) => decisionItem(d, call))}
          </ul>`
    }
  </section>`
}

function decisionItem(d: ApprovalView['decisions'][number], call: ToolCall | null): SafeHtml {
  const edited =
    call && isObject(d.input) && isObject(d.input.arguments)
      ? changedArguments(call.arguments, d.input.arguments)
      : []
  return html`<li>
    <strong>${d.by}</strong> ${d.decision === 'approve' ? 'approved' : 'rejected'}
    <time datetime="${d.at}">${timeText(d.at)}</time>${d.comment ? html`: “${d.comment}”` : ''}${
      edited.length > 0
        ? html`<ul class="changes" aria-label="What the edit changed">
            ${edited.map((c) => html`<li><code>${c.name}</code>: <del>${c.before === undefined ? '(absent)' : JSON.stringify(c.before)}</del> → <ins>${c.after === undefined ? '(absent)' : JSON.stringify(c.after)}</ins></li>`)}
          </ul>`
        : ''
    }
  </li>`
}

function controlsSection(
  model: ApprovalPageModel,
  call: ToolCall | null,
  controls: PanelControls,
): SafeHtml {
  const { approval } = model
  // A tool call's rule may narrow what the approver can do; the agent enforces it too.
  const may = (action: string) => call === null || call.allow.has(action)
  const canApprove = controls.decisions.includes('approve')
  const canReject = controls.decisions.includes('reject')
  const canAccept = canApprove && may('accept')
  const canRefuse = canReject && (may('ignore') || may('respond'))
  const hidden = html`<input
      type="hidden"
      name="materialHash"
      value="${approval.materialHash}"
    />${controls.csrf ? html`<input type="hidden" name="csrf" value="${controls.csrf}" />` : ''}`
  return html`<section aria-labelledby="decide-heading" class="decide">
    <h2 id="decide-heading">Decide</h2>
    <p>
      ${controls.decidingAs ? html`You decide as <strong>${controls.decidingAs}</strong>, on exactly what this page shows (material <code>${approval.materialHash.slice(0, 12)}</code>). ` : html`You decide on exactly what this page shows (material <code>${approval.materialHash.slice(0, 12)}</code>). `}If
      it has changed meanwhile, the decision is refused.
    </p>
    <form method="post" data-form="decide">
      ${hidden}
      <div class="field">
        <label for="comment">Comment <span class="optional">(optional)</span></label>
        <textarea id="comment" name="comment" rows="2" maxlength="2000"></textarea>
      </div>
      <div class="buttons">
        ${canAccept ? html`<button type="submit" name="decision" value="approve" class="approve">Approve</button>` : ''}${canRefuse ? html`<button type="submit" name="decision" value="reject" class="reject">Reject</button>` : ''}
      </div>
    </form>
    ${call && canApprove && may('edit') ? editForm(model, call, hidden) : ''}
    ${
      call && canReject && may('respond')
        ? html`<form method="post" data-form="respond">
            ${hidden}<input type="hidden" name="decision" value="reject" />
            <div class="field">
              <label for="response">Answer the agent instead</label>
              <span class="hint" id="response-hint"
                >The call does not run; the model reads your answer as the call’s result.</span
              >
              <textarea
                id="response"
                name="comment"
                rows="2"
                maxlength="2000"
                required
                aria-describedby="response-hint"
              ></textarea>
            </div>
            <div class="buttons"><button type="submit" class="reject">Send the answer</button></div>
          </form>`
        : ''
    }
    <div class="outcome" role="status" aria-live="polite"></div>
  </section>`
}

function editForm(model: ApprovalPageModel, call: ToolCall, hidden: SafeHtml): SafeHtml {
  const fields = editFields(model, call)
  return html`<form method="post" data-form="edit">
    ${hidden}<input type="hidden" name="decision" value="approve-edited" />
    <fieldset>
      <legend>Change the call’s arguments, then approve</legend>
      ${renderArgumentFields(fields, call.arguments)}
    </fieldset>
    <div class="buttons">
      <button type="submit" class="approve">Approve with these arguments</button>
    </div>
  </form>`
}

/** A time as the page prints it (UTC, minutes). */
export function timeText(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/** How long until `expiresAt`, in words. */
export function timeLeft(expiresAt: string | null, now: Date): string {
  if (expiresAt === null) return 'no time limit'
  const ms = Date.parse(expiresAt) - now.getTime()
  if (ms <= 0) return `expired at ${timeText(expiresAt)}`
  const minutes = Math.floor(ms / 60_000)
  const days = Math.floor(minutes / 1440)
  const hours = Math.floor((minutes % 1440) / 60)
  const parts =
    days > 0
      ? [plural(days, 'day'), plural(hours, 'hour')]
      : hours > 0
        ? [plural(hours, 'hour'), plural(minutes % 60, 'minute')]
        : [minutes > 0 ? plural(minutes, 'minute') : 'less than a minute']
  return `${parts.filter(Boolean).join(' ')} (until ${timeText(expiresAt)})`
}

function plural(n: number, unit: string): string {
  if (n === 0) return ''
  return `${n} ${unit}${n === 1 ? '' : 's'}`
}
