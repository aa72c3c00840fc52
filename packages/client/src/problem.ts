import type { components } from './openapi-types.js'

/** One invalid field of a request, as a problem's `errors` lists it. */
export type FieldError = components['schemas']['FieldError']

/**
 * An error answer of Weave, thrown by every call of the client: the RFC 9457 problem details
 * the API sent (`application/problem+json`), or their closest reading when the answer came from
 * something in front of Weave and was not a problem.
 */
export class WeaveProblemError extends Error {
  override name = 'WeaveProblemError'
  /** The HTTP status. */
  readonly status: number
  /** The problem type, a URI reference such as `/problems/run-not-found`; `about:blank` when the answer was not a problem. */
  readonly type: string
  /** The type's last segment, such as `run-not-found`: what callers branch on. */
  readonly problem: string
  readonly title: string
  readonly detail: string
  /** Every invalid field of a 400 (empty otherwise). */
  readonly errors: readonly FieldError[]
  /** `Retry-After` in seconds, when the answer carried one. */
  readonly retryAfterSeconds: number | undefined
  /** The `X-Request-Id` of the answer, for the server's logs. */
  readonly requestId: string | undefined
  /** The answer's body as sent. */
  readonly body: unknown

  constructor(response: Response, body: unknown) {
    const problem = isRecord(body) ? body : {}
    const type = typeof problem.type === 'string' ? problem.type : 'about:blank'
    const title =
      typeof problem.title === 'string' ? problem.title : response.statusText || 'HTTP error'
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof body === 'string' && body !== ''
          ? body.slice(0, 500)
          : title
    super(`${response.status} ${title}: ${detail}`)
    this.status = response.status
    this.type = type
    this.problem = type.slice(type.lastIndexOf('/') + 1)
    this.title = title
    this.detail = detail
    this.errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : []
    this.retryAfterSeconds = retryAfterSeconds(response.headers.get('retry-after'))
    this.requestId = response.headers.get('x-request-id') ?? undefined
    this.body = body
  }

  /** Reads a failed response's body and returns the error it stands for. */
  static async fromResponse(response: Response): Promise<WeaveProblemError> {
    const text = await response.text().catch(() => '')
    let body: unknown = text
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      // Not JSON: a proxy's page, kept as text.
    }
    return new WeaveProblemError(response, body)
  }
}

/**
 * `Retry-After` in seconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable.
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim())
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
