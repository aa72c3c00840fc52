import { STATUS_CODES } from 'node:http'

/**
 * The one table of problem types Weave answers with. A name is the last segment of the problem's
 * `type` URI (`/problems/<name>`); the status and title are fixed per name. Resource-specific
 * problems (e.g. `run-not-found`) are added here, next to the generic one of their status.
 */
export const problemTypes = {
  'validation-failed': { status: 400, title: 'Request validation failed' },
  'malformed-request': { status: 400, title: 'Malformed request' },
  'invalid-cursor': { status: 400, title: 'Invalid cursor' },
  'webhook-url-refused': { status: 400, title: 'Webhook URL refused' },
  'approval-link-decision': { status: 400, title: 'Wrong decision for this approval link' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'separation-of-duties': { status: 403, title: 'Separation of duties' },
  'not-an-approver': { status: 403, title: 'Not an approver' },
  'not-found': { status: 404, title: 'Not found' },
  'graph-not-found': { status: 404, title: 'Graph not found' },
  'graph-version-not-found': { status: 404, title: 'Graph version not found' },
  'run-not-found': { status: 404, title: 'Run not found' },
  'checkpoint-not-found': { status: 404, title: 'Checkpoint not found' },
  'approval-not-found': { status: 404, title: 'Approval not found' },
  'webhook-not-found': { status: 404, title: 'Webhook not found' },
  'approval-link-not-found': { status: 404, title: 'Approval link not found' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  'graph-archived': { status: 409, title: 'Graph archived' },
  'idempotency-conflict': { status: 409, title: 'Idempotency key reused' },
  'run-finished': { status: 409, title: 'Run already finished' },
  'run-not-resumable': { status: 409, title: 'Run not resumable' },
  'approval-settled': { status: 409, title: 'Approval already settled' },
  'approval-expired': { status: 409, title: 'Approval expired' },
  'already-decided': { status: 409, title: 'Already decided' },
  'material-mismatch': { status: 409, title: 'Material mismatch' },
  'approval-material-changed': { status: 409, title: 'Approved material changed' },
  'approval-link-used': { status: 409, title: 'Approval link already used' },
  'approval-link-expired': { status: 410, title: 'Approval link expired' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  unprocessable: { status: 422, title: 'Unprocessable content' },
  'invalid-graph-spec': { status: 422, title: 'Invalid graph spec' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'header-too-large': { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
  'not-ready': { status: 503, title: 'Not ready' },
} as const satisfies Record<string, { status: number; title: string }>

type ProblemTypes = typeof problemTypes

/** The name of a problem type in {@link problemTypes}. */
export type ProblemName = keyof ProblemTypes

/** The problem names whose status is `S`, e.g. `ProblemNameFor<404>`. */
export type ProblemNameFor<S extends number> = {
  [K in ProblemName]: ProblemTypes[K]['status'] extends S ? K : never
}[ProblemName]

/** A problem's HTTP status, from the table. */
export type ProblemStatus = ProblemTypes[ProblemName]['status']

/** One invalid field of a request: a JSON Pointer into the request and what is wrong there. */
export interface FieldError {
  path: string
  message: string
}

/** An RFC 9457 problem details body as Weave renders it. */
export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  instance?: string
  errors?: FieldError[]
  [extension: string]: unknown
}

/** The `type` URI of a named problem. */
export function problemTypeUri(name: ProblemName): string {
  return `/problems/${name}`
}

/** The generic problem for a status, the first table entry with it, if the table has one. */
export function problemNameForStatus(status: number): ProblemName | undefined {
  return (Object.keys(problemTypes) as ProblemName[]).find(
    (name) => problemTypes[name].status === status,
  )
}

/**
 * The problem body for a status the table does not name: RFC 9457's `about:blank`, whose title
 * is the status phrase.
 */
export function blankProblem(status: number, detail: string): ProblemBody {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail }
}
