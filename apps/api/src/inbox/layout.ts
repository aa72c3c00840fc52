import { html, type HtmlValue, type SafeHtml } from './html.js'

/** Where the inbox's own files are served; the CSP allows scripts and styles from here only. */
export const STATIC_PREFIX = '/inbox/static'

/** Options of {@link page}. */
export interface PageOptions {
  title: string
  /** Loads inbox.js: the bearer-token pages need it, the approval-link page works without it. */
  isScripted?: boolean
  /** `data-page` of the body: which page inbox.js drives. */
  pageKind?: 'list' | 'approval' | 'link'
}

/** A complete inbox page: one stylesheet, at most one external script, no inline code. */
export function page(options: PageOptions, body: HtmlValue): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${options.title} · Weave inbox</title>
        <link rel="stylesheet" href="${STATIC_PREFIX}/inbox.css" />
        ${options.isScripted ? html`<script src="${STATIC_PREFIX}/inbox.js" defer></script>` : ''}
      </head>
      <body data-page="${options.pageKind ?? 'link'}">
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <p class="brand"><a href="/inbox">Weave inbox</a></p>
        </header>
        <main id="main" tabindex="-1">${body}</main>
      </body>
    </html> `
}
