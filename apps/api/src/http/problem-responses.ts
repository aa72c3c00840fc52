import { STATUS_CODES } from 'node:http'
import type { z } from 'zod'
import { Problem } from '../schemas/problem.js'
import {
  problemTypes,
  problemTypeUri,
  type FieldError,
  type ProblemName,
  type ProblemStatus,
} from './problems.js'

/** A response header as a route schema documents it: its description and JSON Schema. */
export interface DocumentedHeader {
  description: string
  type: 'string' | 'integer'
  format?: string
  examples?: unknown[]
}

/** One named example of a response body (an OpenAPI Example Object). */
export interface ResponseExample {
  summary: string
  value: unknown
}

/** The response entry of one problem status in a route schema. */
export interface ProblemResponse {
  description: string
  headers?: Record<string, DocumentedHeader>
  content: {
    'application/problem+json': { schema: z.ZodType; examples: Record<string, ResponseExample> }
  }
}

/**
 * One documented problem: its type and a detail (and members) such as Weave answers with. The
 * `instance` is filled in per operation when the document is finished (openapi.ts).
 */
export interface ProblemExample {
  problem: ProblemName
  detail: string
  errors?: FieldError[]
  extensions?: Record<string, unknown>
}

const RETRY_AFTER: DocumentedHeader = {
  description: 'Seconds to wait before sending the request again',
  type: 'integer',
  examples: [2],
}

// The headers every problem of a status carries (app-errors.ts, render-problem.ts).
const PROBLEM_HEADERS: Partial<Record<ProblemStatus, Record<string, DocumentedHeader>>> = {
  401: {
    'WWW-Authenticate': {
      description:
        'The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token ' +
        'that is refused, no error for a request without one',
      type: 'string',
      examples: [
        'Bearer realm="weave", error="invalid_token", error_description="The token has expired."',
      ],
    },
  },
  403: {
    'WWW-Authenticate': {
      description:
        'Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs',
      type: 'string',
      examples: ['Bearer realm="weave", error="insufficient_scope", scope="runs:write"'],
    },
  },
  429: { 'Retry-After': RETRY_AFTER },
  503: {
    'Retry-After': {
      ...RETRY_AFTER,
      description:
        'Seconds to wait before sending the request again, when the dependency is expected back',
    },
  },
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
  503: 'A dependency is unavailable; see Retry-After',
}

/** A realistic body of each problem type, as the API words it. */
const EXAMPLES: Record<ProblemName, Omit<ProblemExample, 'problem'>> = {
  'validation-failed': {
    detail: 'The request query is invalid: 1 problem.',
    errors: [{ path: '/query/limit', message: 'Too big: expected number to be <=200' }],
  },
  'malformed-request': { detail: 'The body is not valid JSON.' },
  'invalid-cursor': { detail: 'The cursor is not one this server issued.' },
  'webhook-url-refused': {
    detail: 'The webhook URL is refused: 10.0.0.7 is a private address.',
    errors: [{ path: '/body/url', message: '10.0.0.7 is a private address' }],
  },
  'approval-link-decision': {
    detail: 'This link needs a decision, or is bound to another decision than the one sent.',
  },
  unauthorized: { detail: 'The token has expired.' },
  forbidden: { detail: 'This operation needs the scope "runs:write".' },
  'separation-of-duties': {
    detail: 'The subject who started the run cannot decide its approvals.',
  },
  'not-an-approver': { detail: "You are not one of the approval's approvers." },
  'not-found': { detail: 'No such route.' },
  'graph-not-found': { detail: 'No graph named "refunds".' },
  'graph-version-not-found': { detail: 'Graph "refunds" has no version 7.' },
  'run-not-found': { detail: 'No run 0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11.' },
  'checkpoint-not-found': {
    detail: 'Run 0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11 has no checkpoint 9.',
  },
  'approval-not-found': { detail: 'No approval 5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f.' },
  'webhook-not-found': { detail: 'No webhook 9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f.' },
  'approval-link-not-found': { detail: 'This approval link is not valid.' },
  'request-timeout': { detail: 'The request body was not received in time.' },
  conflict: { detail: 'A concurrent change conflicted; retry the request.' },
  'graph-archived': { detail: 'Graph "refunds" is archived and takes no new runs.' },
  'idempotency-conflict': {
    detail: 'This Idempotency-Key was already used with a different request body.',
  },
  'run-finished': { detail: 'The run already finished (completed).' },
  'run-not-resumable': { detail: 'The run is waiting for an approval, not for input.' },
  'approval-settled': { detail: 'The approval is already settled.' },
  'approval-expired': { detail: 'The approval has expired.' },
  'already-decided': { detail: 'You have already decided this approval.' },
  'material-mismatch': {
    detail: 'The materialHash does not match what the approval shows; reload it and decide again.',
  },
  'approval-material-changed': {
    detail: 'The input changes what approval 5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f was approved on.',
  },
  'approval-link-used': { detail: 'This approval link has already been used.' },
  'approval-link-expired': { detail: 'This approval link has expired.' },
  'payload-too-large': { detail: 'The request body is larger than 1048576 bytes.' },
  'uri-too-long': { detail: 'A path segment is too long.' },
  'unsupported-media-type': { detail: 'Send the request body as application/json.' },
  unprocessable: { detail: 'The input is not valid for this step: 1 problem.' },
  'invalid-graph-spec': {
    detail: 'The graph spec is invalid: 1 problem.',
    errors: [
      {
        path: '/body/spec/steps/review/next',
        message: 'routes to "refund", which is not a step',
      },
    ],
  },
  'rate-limited': { detail: 'Rate limit exceeded; retry in 12 s.' },
  'header-too-large': { detail: 'The request headers are too large.' },
  internal: { detail: 'An unexpected error occurred; it has been logged.' },
  'service-unavailable': { detail: 'The database is unavailable; retry the request shortly.' },
  'not-ready': { detail: 'Not reachable: postgres.' },
}

type ProblemTypes = typeof problemTypes

/** What a route lists: a status (its generic problem), a problem type, or a worded example. */
export type ProblemEntry = ProblemStatus | ProblemName | ProblemExample

type StatusOf<E> = E extends ProblemStatus
  ? E
  : E extends ProblemName
    ? ProblemTypes[E]['status']
    : E extends { problem: infer N extends ProblemName }
      ? ProblemTypes[N]['status']
      : never

/** The generic problem of each status, the one a bare status stands for. */
const GENERIC: Partial<Record<ProblemStatus, ProblemName>> = {
  400: 'validation-failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  410: 'approval-link-expired',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  422: 'unprocessable',
  429: 'rate-limited',
  500: 'internal',
  503: 'service-unavailable',
}

function exampleOf(entry: ProblemEntry): ProblemExample {
  if (typeof entry === 'object') return entry
  const name = typeof entry === 'number' ? GENERIC[entry] : entry
  if (name === undefined) throw new Error(`No generic problem for status ${entry}`)
  return { problem: name, ...EXAMPLES[name] }
}

/** The problem body an example stands for, without its `instance`. */
export function problemExampleBody(example: ProblemExample): Record<string, unknown> {
  const { status, title } = problemTypes[example.problem]
  return {
    ...example.extensions,
    type: problemTypeUri(example.problem),
    title,
    status,
    detail: example.detail,
    ...(example.errors ? { errors: example.errors } : {}),
  }
}

/**
 * Route-schema `response` entries for the problems a route can answer, each with a realistic
 * example body and the headers its status carries, e.g.
 * `response: { 200: RunView, ...problemResponses(400, 401, 'run-not-found', 429) }`. A status
 * stands for its generic problem; several problem types of one status give one example each.
 */
export function problemResponses<const E extends readonly ProblemEntry[]>(
  ...entries: E
): Record<StatusOf<E[number]>, ProblemResponse> {
  const responses: Partial<Record<number, ProblemResponse>> = {}
  for (const entry of entries) {
    const example = exampleOf(entry)
    const status = problemTypes[example.problem].status
    const response = (responses[status] ??= {
      description: DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? 'Problem',
      ...(PROBLEM_HEADERS[status] ? { headers: PROBLEM_HEADERS[status] } : {}),
      content: { 'application/problem+json': { schema: Problem, examples: {} } },
    })
    response.content['application/problem+json'].examples[example.problem] = {
      summary: problemTypes[example.problem].title,
      value: problemExampleBody(example),
    }
  }
  return responses as Record<StatusOf<E[number]>, ProblemResponse>
}

/** `Location` of a created resource. */
export function locationHeader(description: string, example: string): DocumentedHeader {
  return { description, type: 'string', format: 'uri-reference', examples: [example] }
}

/** `Idempotent-Replayed: true` on the answer an `Idempotency-Key` replayed. */
export const IDEMPOTENT_REPLAYED: Record<string, DocumentedHeader> = {
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when this answer replays the request an `Idempotency-Key` already made: ' +
      'nothing was changed this time',
    type: 'string',
    examples: ['true'],
  },
}
