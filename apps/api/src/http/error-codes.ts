import type { ProblemName } from './problems.js'

/** How an error that carries a known `code` (kernel, spec, db, Postgres) is shown to a client. */
export interface CodeMapping {
  problem: ProblemName
  /** The client-facing detail; when absent the error's own message is shown, so only map codes
   *  whose messages are written for clients (ours), never a driver's (they may quote SQL). */
  detail?: string
}

/**
 * Known error codes and their problems. Add a code here when a package starts raising it through
 * an API path; an unmapped code is an internal error (500, logged).
 */
export const errorCodeProblems: ReadonlyMap<string, CodeMapping> = new Map<string, CodeMapping>([
  // @weave/kernel (KernelErrorCode)
  ['checkpoint-not-found', { problem: 'not-found' }],
  ['graph-validation', { problem: 'unprocessable' }],
  // Postgres SQLSTATE
  ['23505', { problem: 'conflict', detail: 'The resource already exists.' }],
  ['40001', { problem: 'conflict', detail: 'A concurrent change conflicted; retry the request.' }],
  ['40P01', { problem: 'conflict', detail: 'A concurrent change conflicted; retry the request.' }],
])
