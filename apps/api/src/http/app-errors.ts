import { problemTypes, type FieldError, type ProblemName, type ProblemNameFor } from './problems.js'

/** Options shared by every {@link AppError}. */
export interface AppErrorOptions extends ErrorOptions {
  /** Per-field problems, rendered as the problem's `errors` member. */
  errors?: FieldError[]
  /** Response headers the problem needs (`WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>
  /** Extra problem members; they never replace the standard ones. */
  extensions?: Record<string, unknown>
}

/**
 * The base of every error an API service or hook throws on purpose. The error handler renders it
 * as the named problem, with `message` as the problem's `detail`, so the message must be fit for
 * the client to read.
 */
export class AppError extends Error {
  override name = 'AppError'
  readonly status: number
  readonly errors: FieldError[] | undefined
  readonly headers: Record<string, string>
  readonly extensions: Record<string, unknown>

  constructor(
    readonly code: ProblemName,
    detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = problemTypes[code].status
    this.errors = options.errors
    this.headers = options.headers ?? {}
    this.extensions = options.extensions ?? {}
  }
}

/** Options of an {@link AppError} subclass whose problem name is restricted to status `S`. */
export interface ProblemOptions<S extends number> extends AppErrorOptions {
  problem?: ProblemNameFor<S>
}

/** 400: the request is malformed or invalid in a way schema validation cannot express. */
export class BadRequestError extends AppError {
  override name = 'BadRequestError'
  constructor(detail: string, options: ProblemOptions<400> = {}) {
    super(options.problem ?? 'validation-failed', detail, options)
  }
}

/** Which RFC 6750 error a 401 reports: none for a missing token, `invalid_token` for a bad one. */
export type BearerChallenge = 'missing-token' | 'invalid-token' | 'invalid-request'

/** 401: no credentials, or credentials that cannot be verified; carries `WWW-Authenticate`. */
export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError'
  constructor(detail: string, options: ProblemOptions<401> & { challenge?: BearerChallenge } = {}) {
    super(options.problem ?? 'unauthorized', detail, {
      ...options,
      headers: {
        ...options.headers,
        'www-authenticate': bearerChallenge(options.challenge ?? 'invalid-token', detail),
      },
    })
  }
}

/** 403: the caller is known but may not do this (a missing scope, a separation-of-duties rule). */
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError'
  constructor(detail: string, options: ProblemOptions<403> & { requiredScope?: string } = {}) {
    const headers = { ...options.headers }
    if (options.requiredScope !== undefined) {
      headers['www-authenticate'] =
        `Bearer realm="weave", error="insufficient_scope", scope="${quotable(options.requiredScope)}"`
    }
    super(options.problem ?? 'forbidden', detail, { ...options, headers })
  }
}

/** 404: no such resource for this tenant (another tenant's resource is also "not found"). */
export class NotFoundError extends AppError {
  override name = 'NotFoundError'
  constructor(detail: string, options: ProblemOptions<404> = {}) {
    super(options.problem ?? 'not-found', detail, options)
  }
}

/** 409: the request conflicts with the resource's current state. */
export class ConflictError extends AppError {
  override name = 'ConflictError'
  constructor(detail: string, options: ProblemOptions<409> = {}) {
    super(options.problem ?? 'conflict', detail, options)
  }
}

/** 422: the input parses but does not validate (e.g. a graph spec); `errors` lists every problem. */
export class UnprocessableError extends AppError {
  override name = 'UnprocessableError'
  constructor(detail: string, errors: FieldError[], options: ProblemOptions<422> = {}) {
    super(options.problem ?? 'unprocessable', detail, { ...options, errors })
  }
}

/** 429: the caller exceeded its rate limit; carries `Retry-After`. */
export class RateLimitedError extends AppError {
  override name = 'RateLimitedError'
  constructor(readonly retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds))
    super('rate-limited', `Rate limit exceeded; retry in ${seconds} s.`, {
      headers: { 'retry-after': String(seconds) },
    })
  }
}

/** 503: a dependency Weave needs is unreachable; never used for anything a client sent. */
export class ServiceUnavailableError extends AppError {
  override name = 'ServiceUnavailableError'
  constructor(detail: string, options: ProblemOptions<503> & { retryAfterSeconds?: number } = {}) {
    const headers = { ...options.headers }
    if (options.retryAfterSeconds !== undefined) {
      headers['retry-after'] = String(Math.max(1, Math.ceil(options.retryAfterSeconds)))
    }
    super(options.problem ?? 'service-unavailable', detail, { ...options, headers })
  }
}

// RFC 6750 §3: without any credentials the challenge carries no error code.
function bearerChallenge(challenge: BearerChallenge, detail: string): string {
  if (challenge === 'missing-token') return 'Bearer realm="weave"'
  const error = challenge === 'invalid-request' ? 'invalid_request' : 'invalid_token'
  return `Bearer realm="weave", error="${error}", error_description="${quotable(detail)}"`
}

// RFC 6750 limits error_description and scope to printable ASCII without `"` and `\`.
function quotable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '')
}
