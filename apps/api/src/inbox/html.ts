/** Markup that is already escaped: the only thing `html` inserts without escaping it. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

/** A value a template accepts: text is escaped, arrays are joined, null and false render nothing. */
export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[]

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for an HTML element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.text
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('')
  return escapeHtml(String(value))
}

/**
 * The one way inbox markup is built: every interpolated value is escaped unless it is itself the
 * result of `html` (inbox-html.test.ts). Nothing a run, a graph or a client wrote can add markup.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!
  })
  return new SafeHtml(out)
}
