import type { Graph, GraphOptions, Json } from '@weave/kernel'
import type { ExpressionLimits } from './expression.js'
import type { HandlerRegistry } from './handlers.js'
import type { LookupAll } from './http/egress.js'
import type { JsonSchemaDocument } from './schema-primitives.js'

/** Outbound HTTP for http steps. */
export interface HttpDeps {
  /** Host names, `*.example.com`, or `host:port`; empty allows every public host. */
  allow: string[]
  fetch?: typeof fetch
  /** Per-attempt timeout when a step gives none (default 10000). */
  defaultTimeoutMs?: number
  /** DNS resolution (default: node:dns lookup, all addresses). */
  lookup?: LookupAll
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

/** An approval step is waiting for a decision. */
export interface ApprovalSuspension {
  kind: 'approval'
  runId: string
  step: string
  seq: number
  title: string
  details: Json
  approvers: { subjects?: string[]; scopes?: string[] } | null
  required: number
  separationOfDuties: boolean
  /** null: no timeout. */
  timeoutMs: number | null
  onTimeout: 'expire' | 'fail'
  saveAs: string
}

/** An input step is waiting for outside input. */
export interface InputSuspension {
  kind: 'input'
  runId: string
  step: string
  seq: number
  prompt: string | null
  schema: JsonSchemaDocument | null
  saveAs: string | null
}

/** A wait step is sleeping until `until` (ISO 8601). */
export interface WaitSuspension {
  kind: 'wait'
  runId: string
  step: string
  seq: number
  until: string
}

/** Why a run is about to yield, told before the step returns `__yield`. */
export type Suspension = ApprovalSuspension | InputSuspension | WaitSuspension

/** What compiled steps need from the worker that runs them. */
export interface CompileDeps {
  /** A compiled child graph, by registry name and version (absent: latest). */
  loadSubgraph?: (name: string, version?: number) => Promise<Graph>
  handlers?: HandlerRegistry
  http?: HttpDeps
  llm?: LlmDeps
  /** Awaited before a suspending step yields; it may be called again for the same step on a re-run. */
  onSuspend?: (s: Suspension) => void | Promise<void>
  now?: () => Date
  expressionLimits?: ExpressionLimits
  checkpointPolicy?: GraphOptions['checkpointPolicy']
  hooks?: GraphOptions['hooks']
}
