/** Every `code` a `@weave/db` error carries; callers branch on it (docs/architecture.md). */
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
  | 'approval-link-decision'
  | 'approval-link-used'
  | 'approval-link-expired'
  | 'secret-decryption'
  | 'lease-lost'
  | 'decision-input-invalid'
  | 'checkpoint-behind'
  | 'approval-not-usable'
  | 'thread-busy'
  | 'graph-not-found'
  | 'graph-archived'
  | 'graph-version-changed'

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
    /** The run (or approval) the key already names. */
    readonly resourceId: string,
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

/**
 * Why an approval link cannot be used: unknown (or tampered with), already used, expired, or sent
 * without the decision it needs (a page link) or with another than the one it is bound to.
 */
export class ApprovalLinkError extends DbError {
  override name = 'ApprovalLinkError'
  constructor(
    code:
      | 'approval-link-not-found'
      | 'approval-link-decision'
      | 'approval-link-used'
      | 'approval-link-expired',
  ) {
    super(code, code.replaceAll('-', ' '))
  }
}

/**
 * A checkpoint write refused by the run's fence: the run is no longer running under the claim
 * that wrote (`lease-lost`, another executor took it), the write would not move the run's
 * checkpoint forward (`checkpoint-behind`), or the settled approval the step used is not one
 * (`approval-not-usable`). Nothing of the step was written.
 */
export class StepRefusedError extends DbError {
  override name = 'StepRefusedError'
  constructor(
    code: 'lease-lost' | 'checkpoint-behind' | 'approval-not-usable',
    readonly runId: string,
    options?: ErrorOptions,
  ) {
    super(code, `${code.replaceAll('-', ' ')}: run ${runId}`, options)
  }
}

/** A decision's input that cannot be recorded; `problems` has every reason with its path. */
export class DecisionInputError extends DbError {
  override name = 'DecisionInputError'
  constructor(readonly problems: Array<{ path: string; message: string }>) {
    super('decision-input-invalid', 'the decision input does not match the approval step schema')
  }
}

/** A thread whose strategy is `reject` already has an active run: the one named. */
export class ThreadBusyError extends DbError {
  override name = 'ThreadBusyError'
  constructor(
    readonly threadKey: string,
    readonly activeRunId: string,
  ) {
    super('thread-busy', `thread ${threadKey} has an active run ${activeRunId}`)
  }
}

/**
 * A run's start refused by its graph: there is no such graph (`graph-not-found`), it is archived
 * (`graph-archived`), or the version the input was validated against is no longer the one the
 * start asked for (`graph-version-changed`: a newer latest, or the graph registered again under
 * that number with another spec). Nothing of the start was written.
 */
export class RunStartRefusedError extends DbError {
  override name = 'RunStartRefusedError'
  constructor(
    code: 'graph-not-found' | 'graph-archived' | 'graph-version-changed',
    readonly graphName: string,
    options?: ErrorOptions,
  ) {
    super(code, `${code.replaceAll('-', ' ')}: graph ${graphName}`, options)
  }
}
