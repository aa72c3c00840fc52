import type { SpecProblem } from './problem.js'

/** Stable machine-readable codes of spec errors; branch on `err.code` across packages. */
export type SpecErrorCode =
  | 'spec-compile'
  | 'expression'
  | 'expression-syntax'
  | 'duration'
  | 'egress-denied'
  | 'http-step'
  | 'llm-step'
  | 'mcp-tool'
  | 'mcp-tool-changed'
  | 'subgraph-tool-waited'
  | 'handler-not-found'
  | 'handler-conflict'
  | 'handler-module'
  | 'approval-expired'
  | 'fail-step'

/** The base of every error the spec package raises. */
export class SpecError extends Error {
  override name = 'SpecError'
  constructor(
    readonly code: SpecErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

/** A spec could not be compiled into a graph; `problems` lists why. */
export class SpecCompileError extends SpecError {
  override name = 'SpecCompileError'
  constructor(
    readonly problems: SpecProblem[],
    options?: ErrorOptions,
  ) {
    super(
      'spec-compile',
      `cannot compile graph spec: ${problems.map((p) => `${p.path || '/'}: ${p.message}`).join('; ')}`,
      options,
    )
  }
}

/** Why an expression evaluation failed. */
export type ExpressionFailure = 'error' | 'timeout' | 'depth' | 'too-large' | 'not-json'

/** A JSONata expression failed at run time; the message names the step and the expression. */
export class ExpressionError extends SpecError {
  override name = 'ExpressionError'
  constructor(
    readonly step: string,
    readonly expression: string,
    readonly reason: ExpressionFailure,
    detail: string,
    options?: ErrorOptions,
  ) {
    super('expression', `step "${step}": expression "${expression}" failed: ${detail}`, options)
  }
}

/** A JSONata expression or template does not parse. */
export class ExpressionSyntaxError extends SpecError {
  override name = 'ExpressionSyntaxError'
  constructor(
    readonly expression: string,
    detail: string,
  ) {
    super('expression-syntax', `expression "${expression}" does not parse: ${detail}`)
  }
}

/** A string is not an ISO 8601 duration Weave accepts. */
export class DurationError extends SpecError {
  override name = 'DurationError'
  constructor(
    readonly input: string,
    detail: string,
  ) {
    super('duration', `invalid ISO 8601 duration "${input}": ${detail}`)
  }
}

/** An http step's URL is not allowed by the egress policy. */
export class EgressDeniedError extends SpecError {
  override name = 'EgressDeniedError'
  constructor(
    readonly step: string,
    detail: string,
  ) {
    super('egress-denied', `step "${step}": ${detail}`)
  }
}

/** An http step failed: network error, unexpected status, or an oversized response. */
export class HttpStepError extends SpecError {
  override name = 'HttpStepError'
  constructor(
    readonly step: string,
    detail: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super('http-step', `step "${step}": ${detail}`, options)
  }
}

/** An llm step failed: no endpoint, network error, bad status or an unusable answer. */
export class LlmStepError extends SpecError {
  override name = 'LlmStepError'
  constructor(
    readonly step: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super('llm-step', `step "${step}": ${detail}`, options)
  }
}

/** An agent's MCP tool call got no usable answer: the server could not be reached or failed. */
export class McpToolError extends SpecError {
  override name = 'McpToolError'
  constructor(
    readonly step: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super('mcp-tool', `step "${step}": ${detail}`, options)
  }
}

/**
 * An MCP server no longer lists a tool as the graph version pinned it (changed or gone): the
 * call is not made, and trying again cannot help until the graph is registered again.
 */
export class McpToolChangedError extends SpecError {
  override name = 'McpToolChangedError'
  constructor(
    readonly step: string,
    readonly server: string,
    readonly tool: string,
    detail: string,
  ) {
    super(
      'mcp-tool-changed',
      `step "${step}": MCP tool "${tool}" on ${server} ${detail}; it was not called (register the graph again to accept the server's tool)`,
    )
  }
}

/**
 * An agent's subgraph tool ran a graph that waited (for a person, input or time): a tool call
 * must finish within its unit of work, so the call fails instead of leaving the agent half-way.
 */
export class SubgraphToolWaitError extends SpecError {
  override name = 'SubgraphToolWaitError'
  constructor(
    readonly step: string,
    readonly tool: string,
    readonly graph: string,
  ) {
    super(
      'subgraph-tool-waited',
      `step "${step}": tool "${tool}" ran graph "${graph}", which waited; a subgraph tool's graph must finish without waiting`,
    )
  }
}

/** A handler step names a handler this worker has not registered. */
export class HandlerNotFoundError extends SpecError {
  override name = 'HandlerNotFoundError'
  constructor(
    readonly step: string,
    readonly handler: string,
  ) {
    super('handler-not-found', `step "${step}": no handler "${handler}" is registered`)
  }
}

/** Two different functions were registered under one handler name. */
export class HandlerConflictError extends SpecError {
  override name = 'HandlerConflictError'
  constructor(readonly handler: string) {
    super('handler-conflict', `handler "${handler}" is already registered with another function`)
  }
}

/** A handler module could not be loaded or exports no handler. */
export class HandlerModuleError extends SpecError {
  override name = 'HandlerModuleError'
  constructor(
    readonly specifier: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super('handler-module', `handler module "${specifier}": ${detail}`, options)
  }
}

/** An approval expired and its step says `onTimeout: "fail"`. */
export class ApprovalExpiredError extends SpecError {
  override name = 'ApprovalExpiredError'
  constructor(readonly step: string) {
    super('approval-expired', `step "${step}": the approval expired`)
  }
}

/** A `fail` step ran; the message is the step's rendered message. */
export class FailStepError extends SpecError {
  override name = 'FailStepError'
  constructor(
    readonly step: string,
    message: string,
  ) {
    super('fail-step', message)
  }
}
