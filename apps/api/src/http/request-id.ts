import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * The id of a request: the caller's `X-Request-Id` when it is a safe token, otherwise a new UUID.
 * Used as Fastify's `genReqId`, so every log line of the request carries it.
 */
export function requestIdOf(request: IncomingMessage): string {
  const header = request.headers['x-request-id']
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID()
}
