import { timeLeft, timeText, toolCallOf } from './approval-panel.js'
import { html, type SafeHtml } from './html.js'
import type { InboxFilters, InboxItem } from './inbox-service.js'
import { page } from './layout.js'

/** The sign-in form and notices the bearer-token pages share; inbox.js shows what applies. */
function signIn(): SafeHtml {
  return html`<noscript
      ><p class="notice">
        This page needs JavaScript: it reads your token from this tab only. An approval link
        (<code>/inbox/a/…</code>) works without it.
      </p></noscript
    >
    <section id="sign-in" class="sign-in" aria-labelledby="sign-in-heading" hidden>
      <h1 id="sign-in-heading">Sign in</h1>
      <p>
        Paste a Weave bearer token with the scope <code>approvals:read</code> (and
        <code>approvals:decide</code> to decide). It is kept in this tab only and sent as a header,
        never in a URL.
      </p>
      <form id="sign-in-form">
        <div class="field">
          <label for="token">Bearer token</label>
          <input
            type="password"
            id="token"
            name="token"
            autocomplete="off"
            spellcheck="false"
            required
          />
        </div>
        <div class="buttons"><button type="submit">Sign in</button></div>
      </form>
      <p class="problem" id="sign-in-problem" role="alert"></p>
    </section>
    <p class="session" id="session" hidden>
      Signed in as <strong id="session-subject"></strong>.
      <button type="button" id="sign-out" class="link">Sign out</button>
    </p>`
}

/** `/inbox`: the filters and an empty list that inbox.js fills and keeps current. */
export function listShell(filters: InboxFilters): SafeHtml {
  return page(
    { title: 'Pending approvals', isScripted: true, pageKind: 'list' },
    html`${signIn()}
      <section id="inbox" aria-labelledby="inbox-heading" hidden>
        <h1 id="inbox-heading">Pending approvals</h1>
        <form id="filters" class="filters" role="search" aria-label="Filter approvals">
          <div class="field">
            <label for="graph">Graph</label
            ><input id="graph" name="graph" value="${filters.graph ?? ''}" autocomplete="off" />
          </div>
          <div class="field">
            <label for="run">Run id</label
            ><input id="run" name="run" value="${filters.runId ?? ''}" autocomplete="off" />
          </div>
          <div class="field field-check">
            <input
              type="checkbox"
              id="mine"
              name="mine"
              value="1"
              ${filters.isMine ? html` checked` : ''}
            />
            <label for="mine">Assigned to me</label>
          </div>
          <div class="buttons"><button type="submit">Filter</button></div>
        </form>
        <p id="live" class="live" role="status" aria-live="polite" tabindex="-1"></p>
        <div id="list" aria-busy="true"></div>
      </section>`,
  )
}

/** `/inbox/approvals/{id}`: the approval's page, which inbox.js loads with the token. */
export function approvalShell(): SafeHtml {
  return page(
    { title: 'Approval', isScripted: true, pageKind: 'approval' },
    html`${signIn()}
      <p class="back" id="back" hidden><a href="/inbox">← All pending approvals</a></p>
      <p id="live" class="live" role="status" aria-live="polite" tabindex="-1"></p>
      <div id="approval" aria-busy="true"></div>`,
  )
}

/** The list's rows (a fragment inbox.js swaps in). */
export function listFragment(items: InboxItem[], isTruncated: boolean, now: Date): SafeHtml {
  if (items.length === 0)
    return html`<p class="empty" data-count="0">No pending approvals match.</p>`
  return html`<ul class="items" data-count="${items.length}">
      ${items.map(({ approval, run }) => {
        const call = toolCallOf(approval)
        return html`<li class="item" data-approval-id="${approval.id}">
          <h2><a href="/inbox/approvals/${approval.id}">${approval.title}</a></h2>
          <p class="meta">
            ${call ? html`Tool call <code>${call.tool}</code> · ` : ''}Graph
            <code>${run.graph}</code> v${run.version} · run
            <code>${run.id.slice(0, 8)}</code> started by ${run.createdBy} · asked
            <time datetime="${approval.createdAt}">${timeText(approval.createdAt)}</time> ·
            ${approval.decisions.filter((d) => d.decision === 'approve').length}/${approval.required}
            approvals · ${timeLeft(approval.expiresAt, now)}
          </p>
        </li>`
      })}
    </ul>
    ${isTruncated ? html`<p class="notice">Only the newest ${items.length} are shown; filter to see others.</p>` : ''}`
}
