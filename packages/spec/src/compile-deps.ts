import type { Delta, Graph, GraphOptions, Json } from '@weave/kernel'
import type { AgentEvent } from './agent-events.js'
import type { ExpressionLimits } from './expression.js'
import type { HandlerRegistry } from './handlers.js'
import type { LookupAll } from './http/egress.js'

/** Outbound HTTP for http steps. */
export interface HttpDeps {
  /** Host names, `*.example.com`, or `host:port`; empty allows every public host. */
  allow: string[]
  fetch?: typeof fetch
  /** Per-attempt timeout when a step gives none (default 10000). */
  defaultTimeoutMs?: number
  /** DNS resolution (default: node:dns lookup, all addresses). */
  lookup?: LookupAll
  /**
   * The `Idempotency-Key` of a step's call (default `<runId>:<step>:<seq>`). A host that retries
   * a failed step under a new seq gives the seq of the step's first attempt, so a receiver sees
   * one key however many times the call is sent.
   */
  idempotencyKey?: (call: { runId: string; step: string; seq: number }) => string
}

/** The OpenAI-compatible endpoint for llm steps. */
export interface LlmDeps {
  /** E.g. `https://api.openai.com/v1`; the step posts to `${baseUrl}/chat/completions`. */
  baseUrl: string
  apiKey?: string
  fetch?: typeof fetch
  /** Per attempt (default 60000). */
  timeoutMs?: number
  /** Total attempts on network errors, 5xx and 429 (default 3). */
  attempts?: number
  /** Delay before the second attempt, doubled after (default 1000). */
  backoffMs?: number
}

/** MCP tools of agent steps; their servers pass the egress policy of `http`. */
export interface McpDeps {
  /** How long one call may take: connecting, checking the pin and the call (default 60000). */
  timeoutMs?: number
}

/** What an approval step asks of its host when resumed: the decision it may complete with. */
export interface ApprovalDecisions {
  /**
   * The record of a settled decision the resume named for this step, made on exactly this
   * material (`{ status, approvalId, decisions }`), or null: the step then asks again. The host
   * must make the step's checkpoint fail unless the decision is still unused when it commits.
   */
  decision(query: {
    runId: string
    step: string
    seq: number
    materialHash: string
    /**
     * An agent tool call, asked about with the other calls of its turn at `seq`: its own
     * settled approval is looked up, whichever approval the resume named.
     */
    callId?: string
  }): Promise<Json | null>
}

/** What compiled steps need from the worker that runs them. */
export interface CompileDeps {
  /** A compiled child graph, by registry name and version (absent: latest). */
  loadSubgraph?: (name: string, version?: number) => Promise<Graph>
  handlers?: HandlerRegistry
  http?: HttpDeps
  llm?: LlmDeps
  mcp?: McpDeps
  /** Settled decisions for approval steps; without it an approval step never completes. */
  approvals?: ApprovalDecisions
  /**
   * Receives what an agent step did in a unit of work (the run and seq of the unit's step), just
   * before the unit's checkpoint is written; the host records them with it.
   */
  agentEvents?: (at: { runId: string; seq: number }, events: AgentEvent[]) => void
  now?: () => Date
  expressionLimits?: ExpressionLimits
  /**
   * The server's ceilings on a graph's `limits`: a graph never runs with a higher value, and one
   * that sets none gets the ceiling (`maxIterations`: the lower of the ceiling and the kernel
   * default, 100).
   */
  maxima?: { maxIterations?: number; stepBudget?: number }
  checkpointPolicy?: GraphOptions['checkpointPolicy']
  hooks?: GraphOptions['hooks']
  /**
   * Runs every step's work (its hooks excluded): the host calls `run` once and returns what it
   * returns, e.g. inside a tracing span, so the step's outgoing calls are that span's children.
   */
  aroundStep?: (
    call: { graph: string; runId: string; step: string; seq: number },
    run: () => Promise<Delta>,
  ) => Promise<Delta>
}
