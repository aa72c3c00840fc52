/** Stable machine-readable codes of kernel errors; branch on `err.code` across packages. */
export type KernelErrorCode =
  | 'kernel'
  | 'graph-validation'
  | 'step-not-found'
  | 'max-iterations'
  | 'budget-exhausted'
  | 'cancelled'
  | 'checkpoint-write'
  | 'checkpoint-not-found'
  | 'corrupt-checkpoint'
  | 'unsupported-checkpoint-schema'
  | 'nested-tx'
  | 'parallel-conflict'
  | 'frozen-merge-config'

/** The base of every error the kernel raises. */
export class KernelError extends Error {
  override name = 'KernelError'
  readonly code: KernelErrorCode
  constructor(message: string, options?: ErrorOptions & { code?: KernelErrorCode }) {
    super(message, options)
    this.code = options?.code ?? 'kernel'
  }
}

/** A graph or its options are malformed; `problems` lists every problem found. */
export class GraphValidationError extends KernelError {
  override name = 'GraphValidationError'
  constructor(readonly problems: string[]) {
    super(`invalid graph: ${problems.join('; ')}`, { code: 'graph-validation' })
  }
}

/** A router or a resume named a step the graph does not have. */
export class StepNotFoundError extends KernelError {
  override name = 'StepNotFoundError'
  constructor(readonly step: string) {
    super(`step "${step}" is not registered`, { code: 'step-not-found' })
  }
}

/** One invocation started `maxIterations` steps and was stopped. */
export class MaxIterationsError extends KernelError {
  override name = 'MaxIterationsError'
  constructor(readonly limit: number) {
    super(`stopped after ${limit} steps (maxIterations)`, { code: 'max-iterations' })
  }
}

/** The run's step budget is spent. */
export class BudgetExhaustedError extends KernelError {
  override name = 'BudgetExhaustedError'
  constructor(message = 'step budget exhausted') {
    super(message, { code: 'budget-exhausted' })
  }
}

/** The run was cancelled through its AbortSignal. */
export class CancelledError extends KernelError {
  override name = 'CancelledError'
  constructor(message = 'run cancelled', options?: ErrorOptions) {
    super(message, { ...options, code: 'cancelled' })
  }
}

/** A checkpoint could not be written under the "required" policy; `cause` is the store's error. */
export class CheckpointWriteError extends KernelError {
  override name = 'CheckpointWriteError'
  constructor(message: string, options?: ErrorOptions) {
    super(message, { ...options, code: 'checkpoint-write' })
  }
}

/** No checkpoint exists for the run (or for that history entry). */
export class CheckpointNotFoundError extends KernelError {
  override name = 'CheckpointNotFoundError'
  constructor(
    readonly runId: string,
    readonly seq?: number,
  ) {
    super(
      seq === undefined
        ? `no checkpoint for run ${runId}`
        : `no checkpoint for run ${runId} at seq ${seq}`,
      { code: 'checkpoint-not-found' },
    )
  }
}

/** A stored checkpoint is not a valid envelope. */
export class CorruptCheckpointError extends KernelError {
  override name = 'CorruptCheckpointError'
  constructor(
    readonly runId: string,
    detail: string,
  ) {
    super(`corrupt checkpoint for run ${runId}: ${detail}`, { code: 'corrupt-checkpoint' })
  }
}

/** A stored checkpoint was written by a newer kernel. */
export class UnsupportedCheckpointSchemaError extends KernelError {
  override name = 'UnsupportedCheckpointSchemaError'
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`checkpoint schema_version ${found} is newer than the supported version ${supported}`, {
      code: 'unsupported-checkpoint-schema',
    })
  }
}

/** `tx` was called on a transaction's store. */
export class NestedTxError extends KernelError {
  override name = 'NestedTxError'
  constructor() {
    super('nested transactions are not supported', { code: 'nested-tx' })
  }
}

/** Two parallel branches wrote the same key and no merge function was given. */
export class ParallelConflictError extends KernelError {
  override name = 'ParallelConflictError'
  constructor(
    readonly key: string,
    readonly branches: string[],
  ) {
    super(`parallel branches ${branches.join(', ')} both wrote "${key}"`, {
      code: 'parallel-conflict',
    })
  }
}

/** `register` was called on a MergeConfig that a Graph has frozen. */
export class FrozenMergeConfigError extends KernelError {
  override name = 'FrozenMergeConfigError'
  constructor(key: string) {
    super(`cannot register a policy for "${key}": the merge config is frozen by a graph`, {
      code: 'frozen-merge-config',
    })
  }
}
