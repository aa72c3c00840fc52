import { STATUS_CODES } from 'node:http'
import type { z } from 'zod'
import { Problem } from '../schemas/problem.js'
import type { ProblemStatus } from './problems.js'

/** The response entry of one problem status in a route schema. */
export interface ProblemResponse {
  description: string
  content: { 'application/problem+json': { schema: z.ZodType } }
}

const DESCRIPTIONS: Partial<Record<ProblemStatus, string>> = {
  400: 'Invalid request: validation failed, or the body or URL is malformed',
  401: 'Missing or invalid bearer token',
  403: 'The token lacks the required scope, or a rule forbids the caller',
  404: 'Not found',
  409: "Conflicts with the resource's current state",
  410: 'Gone: the link has expired',
  413: 'The request body is too large',
  415: 'The request body is not application/json',
  422: 'The input parses but does not validate',
  429: 'Rate limited; see Retry-After',
  500: 'Internal error',
  503: 'A dependency is unavailable',
}

/**
 * Route-schema `response` entries for the problems a route can answer, e.g.
 * `response: { 200: RunView, ...problemResponses(400, 401, 404) }`.
 */
export function problemResponses<S extends ProblemStatus>(
  ...statuses: S[]
): Record<S, ProblemResponse> {
  const responses = {} as Record<S, ProblemResponse>
  for (const status of statuses) {
    responses[status] = {
      description: DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? 'Problem',
      content: { 'application/problem+json': { schema: Problem } },
    }
  }
  return responses
}
