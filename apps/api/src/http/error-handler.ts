import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { DependencyHealth } from '@weave/queue'
import {
  problemBody,
  renderProblem,
  requestPath,
  type RenderedProblem,
  type RenderOptions,
} from './render-problem.js'
import { problemTypeUri } from './problems.js'

/** The media type of every error response. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

const NOT_READY = problemTypeUri('not-ready')

/** Options of {@link errorHandlerPlugin}. */
export interface ErrorHandlerOptions extends RenderOptions {
  /** Where a request failed by an outage reports it, so the outage is logged once, not per request. */
  health?: DependencyHealth | undefined
}

/**
 * Renders every error and every unmatched route as RFC 9457 problem details: the one place error
 * bodies are built. Server errors are logged once, with the error; client errors at debug.
 */
export const errorHandlerPlugin = fp<ErrorHandlerOptions>(
  async (app, options) => {
    app.setErrorHandler((error, request, reply) => {
      sendError(error, request, reply, options)
    })
    app.setNotFoundHandler((request, reply) => {
      const path = requestPath(request.url)
      sendProblem(request, reply, {
        body: problemBody('not-found', `No route matches ${request.method} ${path}.`, path),
        headers: {},
        isServerError: false,
      })
    })
  },
  { name: 'weave-error-handler' },
)

/**
 * Fastify's `frameworkErrors` option: errors raised before routing (a malformed URL, an
 * over-long path parameter) go through the same renderer.
 */
export function frameworkErrorHandler(options: RenderOptions) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    sendError(error, request, reply, options)
  }
}

/**
 * Fastify's `clientErrorHandler` option: the request could not even be parsed (a header block over
 * the limit, a broken request line), so a problem is written straight to the socket.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return
  const [name, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? (['header-too-large', 'The request headers are larger than this server accepts.'] as const)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? (['request-timeout', 'The request was not received in time.'] as const)
        : (['malformed-request', 'The request is not valid HTTP.'] as const)
  const problem = problemBody(name, detail)
  const body = JSON.stringify(problem)
  const status = problem.status
  const requestId = randomUUID()
  this.log.debug({ requestId, code: error.code }, 'client error')
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
}

function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  options: ErrorHandlerOptions,
): void {
  let problem: RenderedProblem
  try {
    problem = renderProblem(error, request, options)
  } catch (renderError) {
    request.log.error({ err: renderError }, 'problem rendering failed')
    problem = {
      body: problemBody('internal', 'An unexpected error occurred; it has been logged.'),
      headers: {},
      isServerError: true,
    }
  }
  if (problem.body.status === 503) {
    // A dependency is away (a Postgres restart answers every request so): the outage is told once
    // by `health`, so each request only at debug; without it, one line each, without the stack,
    // which says nothing a restart's error code does not.
    // A not-ready answer is what a probe asks for; its failed check has reported itself.
    const fields = { problem: problem.body.type, cause: causeSummary(error) }
    const isTold = problem.body.type === NOT_READY || options.health?.report(error) === true
    if (isTold) request.log.debug(fields, 'request refused')
    else request.log.warn(fields, 'request refused')
  } else if (problem.isServerError) {
    request.log.error({ err: error }, 'request failed')
  } else {
    request.log.debug(
      { problem: problem.body.type, status: problem.body.status },
      'request rejected',
    )
  }
  sendProblem(request, reply, problem)
}

/** Sends a rendered problem; the body is pre-serialised so no response schema can reject it. */
function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: RenderedProblem): void {
  if (reply.sent) return
  void reply
    .code(problem.body.status)
    .headers(problem.headers)
    .header('x-request-id', request.id)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem.body))
}

function causeSummary(error: unknown): { message: string; code?: unknown } {
  if (!(error instanceof Error)) return { message: String(error) }
  const code = (error as { code?: unknown }).code
  return code === undefined ? { message: error.message } : { message: error.message, code }
}
