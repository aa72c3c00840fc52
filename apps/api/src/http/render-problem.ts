import type { FastifyError, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '@weave/db'
import { AppError } from './app-errors.js'
import { errorCodeProblems } from './error-codes.js'
import {
  blankProblem,
  problemNameForStatus,
  problemTypes,
  problemTypeUri,
  type FieldError,
  type ProblemBody,
  type ProblemName,
} from './problems.js'

/** A problem ready to send: its body, the headers it needs, and whether it is the server's fault. */
export interface RenderedProblem {
  body: ProblemBody
  headers: Record<string, string>
  isServerError: boolean
}

/** What the renderer needs to know about the server. */
export interface RenderOptions {
  bodyLimitBytes: number
}

/** How long a client is told to wait before retrying while the database is away. */
const DATABASE_RETRY_AFTER_SECONDS = 2

const VALIDATION_PARTS: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
}

// Fastify's own errors, each answered with our words rather than Fastify's.
const FASTIFY_ERRORS: Record<string, (options: RenderOptions) => [ProblemName, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ({ bodyLimitBytes }) => [
    'payload-too-large',
    `The request body is larger than ${bodyLimitBytes} bytes.`,
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => [
    'unsupported-media-type',
    'Send the request body as application/json.',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: () => [
    'malformed-request',
    'The body is empty but its Content-Type is application/json.',
  ],
  // secure-json-parse refuses prototype keys with the same error as broken JSON.
  FST_ERR_CTP_INVALID_JSON_BODY: () => [
    'malformed-request',
    'The body is not valid JSON, or it holds a "__proto__" or "constructor.prototype" key.',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => [
    'malformed-request',
    'The body length does not match Content-Length.',
  ],
  FST_ERR_BAD_URL: () => ['malformed-request', 'The URL is not validly percent-encoded.'],
  FST_ERR_MAX_PARAM_LENGTH: () => ['uri-too-long', 'A path segment is too long.'],
  FST_ERR_NOT_FOUND: () => ['not-found', 'No such route.'],
}

/**
 * Turns anything thrown while handling a request into a problem. Only messages written for
 * clients (AppError, Fastify's 4xx) reach the body; everything else becomes a generic 500.
 */
export function renderProblem(
  error: unknown,
  request: FastifyRequest,
  options: RenderOptions,
): RenderedProblem {
  const instance = requestPath(request.url)
  if (error instanceof AppError) {
    return {
      body: {
        ...error.extensions,
        ...problemBody(error.code, error.message, instance),
        ...(error.errors ? { errors: error.errors } : {}),
      },
      headers: error.headers,
      isServerError: error.status >= 500,
    }
  }
  const fastifyError = asFastifyError(error)
  if (fastifyError?.validation && fastifyError.validationContext) {
    const part = VALIDATION_PARTS[fastifyError.validationContext] ?? fastifyError.validationContext
    const errors: FieldError[] = fastifyError.validation.map((issue) => ({
      path: `/${part}${issue.instancePath}`,
      message: issue.message ?? 'Invalid value',
    }))
    const detail = `The request ${part} is invalid: ${errors.length} problem${errors.length === 1 ? '' : 's'}.`
    return clientProblem({ ...problemBody('validation-failed', detail, instance), errors })
  }
  const code = fastifyError?.code
  const fastifyProblem = code !== undefined ? FASTIFY_ERRORS[code] : undefined
  if (code !== undefined && fastifyProblem && Object.hasOwn(FASTIFY_ERRORS, code)) {
    const [name, detail] = fastifyProblem(options)
    return clientProblem(problemBody(name, detail, instance))
  }
  const coded = mappedCause(error)
  const mapped = coded?.mapped
  if (mapped) {
    const detail = mapped.detail ?? (coded.error as Error).message
    return {
      body: problemBody(mapped.problem, detail, instance),
      headers: {},
      isServerError: problemTypes[mapped.problem].status >= 500,
    }
  }
  const status = fastifyError?.statusCode
  if (code?.startsWith('FST_') && status !== undefined && status >= 400 && status < 500) {
    const name = problemNameForStatus(status)
    const body = name
      ? problemBody(name, fastifyError?.message ?? '', instance)
      : { ...blankProblem(status, fastifyError?.message ?? ''), instance }
    return clientProblem(body)
  }
  if (isDatabaseUnavailable(error)) {
    // Postgres is restarting or unreachable: the request may succeed if sent again shortly.
    return {
      body: problemBody(
        'service-unavailable',
        'The database is unavailable; retry the request shortly.',
        instance,
      ),
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
      isServerError: true,
    }
  }
  return {
    body: problemBody('internal', 'An unexpected error occurred; it has been logged.', instance),
    headers: {},
    isServerError: true,
  }
}

/** The standard members of the named problem. */
export function problemBody(name: ProblemName, detail: string, instance?: string): ProblemBody {
  const { status, title } = problemTypes[name]
  return {
    type: problemTypeUri(name),
    title,
    status,
    detail,
    ...(instance === undefined ? {} : { instance }),
  }
}

/** The path of a request URL, without its query string. */
export function requestPath(url: string): string {
  const end = url.indexOf('?')
  return end === -1 ? url : url.slice(0, end)
}

function clientProblem(body: ProblemBody): RenderedProblem {
  return { body, headers: {}, isServerError: false }
}

function asFastifyError(error: unknown): Partial<FastifyError> | undefined {
  return typeof error === 'object' && error !== null ? error : undefined
}

/**
 * The first error along the `cause` chain whose `code` the table maps: drizzle wraps the driver's
 * error, so a Postgres SQLSTATE (a deadlock, a serialization failure) sits on `cause`.
 */
function mappedCause(
  error: unknown,
): { error: unknown; mapped: NonNullable<ReturnType<typeof errorCodeProblems.get>> } | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code
    const mapped = typeof code === 'string' ? errorCodeProblems.get(code) : undefined
    if (mapped) return { error: current, mapped }
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
