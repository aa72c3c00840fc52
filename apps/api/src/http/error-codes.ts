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
  // @weave/db (DbErrorCode) and its GraphRegistry
  ['run-not-found', { problem: 'run-not-found', detail: 'No such run.' }],
  ['approval-not-found', { problem: 'approval-not-found', detail: 'No such approval.' }],
  ['graph-not-found', { problem: 'graph-not-found', detail: 'No such graph or graph version.' }],
  [
    'invalid-cursor',
    { problem: 'invalid-cursor', detail: 'The cursor is not one this server issued.' },
  ],
  [
    'idempotency-conflict',
    {
      problem: 'idempotency-conflict',
      detail: 'This Idempotency-Key was already used with a different request body.',
    },
  ],
  ['approval-settled', { problem: 'approval-settled', detail: 'The approval is already settled.' }],
  ['approval-expired', { problem: 'approval-expired', detail: 'The approval has expired.' }],
  [
    'already-decided',
    { problem: 'already-decided', detail: 'You have already decided this approval.' },
  ],
  [
    'material-mismatch',
    {
      problem: 'material-mismatch',
      detail:
        'The materialHash does not match what the approval shows; reload it and decide again.',
    },
  ],
  [
    'separation-of-duties',
    {
      problem: 'separation-of-duties',
      detail: 'The subject who started the run cannot decide its approvals.',
    },
  ],
  [
    'not-an-approver',
    { problem: 'not-an-approver', detail: "You are not one of the approval's approvers." },
  ],
  [
    'approval-link-not-found',
    { problem: 'approval-link-not-found', detail: 'This approval link is not valid.' },
  ],
  [
    'approval-link-decision',
    {
      problem: 'approval-link-decision',
      detail: 'This link needs a decision, or is bound to another decision than the one sent.',
    },
  ],
  [
    'approval-link-used',
    { problem: 'approval-link-used', detail: 'This approval link has already been used.' },
  ],
  [
    'approval-link-expired',
    { problem: 'approval-link-expired', detail: 'This approval link has expired.' },
  ],
  // Postgres SQLSTATE
  ['23505', { problem: 'conflict', detail: 'The resource already exists.' }],
  ['40001', { problem: 'conflict', detail: 'A concurrent change conflicted; retry the request.' }],
  ['40P01', { problem: 'conflict', detail: 'A concurrent change conflicted; retry the request.' }],
])
