import type { OperationDoc } from './openapi-operations.js'
import type { FuzzRequest } from './request-arbitrary.js'

/** What the checks read of a response; an event stream's body is left unread (''). */
export interface FuzzResponse {
  statusCode: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

// Text a problem body must never carry unless the client sent it: stack frames, source paths,
// and what Postgres or the query builder say about SQL.
const LEAKS: readonly [string, RegExp][] = [
  ['a stack frame', /\n\s*at\s|\bat\s+(?:async\s+)?[\w$.<>[\] ]+\s\([^)]*:\d+:\d+\)/gi],
  [
    'a source path',
    /file:\/\/\S+|\/node_modules\/\S*|\/(?:work|home|usr|app)\/\S+|\b[\w-]+\.(?:ts|js|mjs|cjs):\d+/gi,
  ],
  [
    'SQL',
    /\bselect\b[^]*?\bfrom\b|\binsert\s+into\b|\bupdate\s+"?\w+"?\s+set\b|\bdelete\s+from\b|\bFailed query\b/gi,
  ],
  [
    'a database error',
    /syntax error at or near|\brelation\s+"|violates\s+\S+\s+constraint|duplicate key value|invalid input syntax for|out of range for type|\bSQLSTATE\b|\bpg_\w+|\bdrizzle\b|column\s+"[^"]+"/gi,
  ],
]

function successViolations(operation: OperationDoc, status: number, contentType: string): string[] {
  const documented = operation.responses[String(status)]
  if (!documented) return [`status ${status} is not documented for ${operation.operationId}`]
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  if (documented.length === 0 || documented.includes(mediaType)) return []
  return [`content-type "${contentType}" is not one of ${documented.join(', ')}`]
}

/** Everything the client sent, as text, so an echoed input is not taken for a leak. */
function sentText(request: FuzzRequest): string {
  const payload = request.payload === undefined ? '' : request.payload.toString()
  return [decodeLoosely(request.url), payload, ...Object.values(request.headers)]
    .join('\n')
    .toLowerCase()
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * What is wrong with a response to a fuzzed request: a 5xx; a 2xx the operation does not
 * document, or in a media type it does not document; for a 4xx, a body that is not RFC 9457
 * problem details whose `status` is the HTTP status; or a body that leaks a stack trace, a source
 * path or SQL the client did not send itself. Empty when the response is acceptable.
 */
export function responseViolations(
  operation: OperationDoc,
  request: FuzzRequest,
  response: FuzzResponse,
): string[] {
  const status = response.statusCode
  const contentType = String(response.headers['content-type'] ?? '')
  const violations: string[] = []
  if (status >= 500) violations.push(`status ${status} (a server error)`)
  if (status < 400) return [...violations, ...successViolations(operation, status, contentType)]
  if (!/^application\/problem\+json(;|$)/.test(contentType)) {
    violations.push(`content-type "${contentType}" is not application/problem+json`)
  }
  let body: unknown
  try {
    body = JSON.parse(response.body)
  } catch {
    violations.push('the body is not JSON')
    return violations
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    violations.push('the body is not a JSON object')
    return violations
  }
  const problem = body as Record<string, unknown>
  for (const member of ['type', 'title', 'detail', 'instance']) {
    if (typeof problem[member] !== 'string') violations.push(`"${member}" is not a string`)
  }
  if (problem.status !== status) {
    violations.push(`"status" is ${JSON.stringify(problem.status)}, not the HTTP status ${status}`)
  }
  const sent = sentText(request)
  for (const [what, pattern] of LEAKS) {
    for (const match of response.body.matchAll(pattern)) {
      const text = match[0].toLowerCase()
      if (!sent.includes(text) && !sent.includes(text.trim())) {
        violations.push(`the body leaks ${what}: ${JSON.stringify(match[0].slice(0, 120))}`)
      }
    }
  }
  return violations
}
