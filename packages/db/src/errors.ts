/** Every `code` a `@weave/db` error carries; callers branch on it (STYLE.md §4). */
export type DbErrorCode =
  | 'run-not-found'
  | 'approval-not-found'
  | 'approval-settled'
  | 'approval-expired'
  | 'already-decided'
  | 'material-mismatch'
  | 'separation-of-duties'
  | 'not-an-approver'
  | 'idempotency-conflict'
  | 'invalid-cursor'
  | 'approval-link-not-found'
  | 'approval-link-used'
  | 'approval-link-expired'
  | 'secret-decryption'

/** Base class of the errors `@weave/db` throws on purpose. */
export class DbError extends Error {
  constructor(
    readonly code: DbErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

/** Kinds of rows a `NotFoundError` can name. */
export type NotFoundResource = 'run' | 'approval'

/** The row does not exist in this tenant (another tenant's row is not found either). */
export class NotFoundError extends DbError {
  override name = 'NotFoundError'
  constructor(
    readonly resource: NotFoundResource,
    readonly id: string,
  ) {
    super(`${resource}-not-found`, `no ${resource} ${id}`)
  }
}

/** A decision conflicts with the approval's state: settled, expired, repeated or stale. */
export class DecisionConflictError extends DbError {
  override name = 'DecisionConflictError'
  constructor(
    code: 'approval-settled' | 'approval-expired' | 'already-decided' | 'material-mismatch',
    message: string,
  ) {
    super(code, message)
  }
}

/** The subject may not decide this approval (not an approver, or the run's own starter). */
export class DecisionForbiddenError extends DbError {
  override name = 'DecisionForbiddenError'
  constructor(code: 'separation-of-duties' | 'not-an-approver', message: string) {
    super(code, message)
  }
}

/** An idempotency key was reused with a different request body. */
export class IdempotencyConflictError extends DbError {
  override name = 'IdempotencyConflictError'
  constructor(
    readonly idempotencyKey: string,
    readonly runId: string,
  ) {
    super('idempotency-conflict', `idempotency key already used with another request`)
  }
}

/** A list cursor that this package did not produce. */
export class InvalidCursorError extends DbError {
  override name = 'InvalidCursorError'
  constructor() {
    super('invalid-cursor', 'invalid cursor')
  }
}

/** Why an approval link cannot be used: unknown (or tampered with), already used, or expired. */
export class ApprovalLinkError extends DbError {
  override name = 'ApprovalLinkError'
  constructor(code: 'approval-link-not-found' | 'approval-link-used' | 'approval-link-expired') {
    super(code, code.replaceAll('-', ' '))
  }
}
