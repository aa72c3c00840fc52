import type { Json, State, StepContext } from '@weave/kernel'
import { HandlerNotFoundError, HttpStepError, type McpToolChangedError } from '../errors.js'
import { RequestFailedError, sendWithRetry } from '../http/request.js'
import type { AgentStepSpec } from '../step-schema.js'
import type { BudgetLeft, SpentUsage } from './agent-budget.js'
import { compileTemplate, type CompiledTemplate } from '../template.js'
import { mcpPinCheck, mcpRunner, type PinnedMcpCall } from './agent-mcp.js'
import { subgraphRunner } from './agent-subgraph.js'
import { allowedTarget, parseResponseBody } from './http-target.js'
import type { StepCompileContext } from './step-compiler.js'

type ToolSpec = AgentStepSpec['tools'][string]
type McpCall = Extract<ToolSpec['call'], { kind: 'mcp' }>

/**
 * A tool as the model is offered it and its calls are checked: description and parameters
 * always there (an mcp tool's from its pin), an mcp call always pinned.
 */
export interface CompiledToolSpec {
  description: string
  parameters: { [key: string]: Json }
  readOnly?: boolean | undefined
  call: Exclude<ToolSpec['call'], McpCall> | PinnedMcpCall
}

/**
 * The tool ready to compile, or undefined for an mcp tool that was never pinned (a spec that did
 * not go through registration): it cannot be called, since nothing fixes what it is.
 */
export function pinnedToolSpec(tool: ToolSpec): CompiledToolSpec | undefined {
  const { description, parameters, readOnly, call } = tool
  if (description === undefined || parameters === undefined) return undefined
  if (call.kind !== 'mcp') return { description, parameters, readOnly, call }
  if (call.digest === undefined) return undefined
  return { description, parameters, readOnly, call: { ...call, digest: call.digest } }
}

const MAX_BODY_BYTES = 1_048_576
const DEFAULT_TIMEOUT_MS = 10_000
const ATTEMPTS = 3
const BACKOFF_MS = 500

/** One tool call to run: the exact arguments that were checked, and the model's call id. */
export interface ToolInvocation {
  callId: string
  args: State
  /** The run's state, which an http tool's URL template renders against. */
  state: Readonly<State>
  /** What is left of the calling agent's budgets: a subgraph tool's agents may not pass it. */
  budget?: BudgetLeft
  /** Told what a subgraph tool's child run spent on its models, to count against the budgets. */
  spend?: (usage: SpentUsage) => void
}

/** Runs a tool and gives what the model is told: JSON text. */
export type ToolRunner = (call: ToolInvocation, ctx: StepContext) => Promise<string>

/**
 * A handler tool: the registered function, looked up at run time as the handler step does,
 * gets the arguments in place of the state; what it returns is the tool's result. A handler
 * that throws fails the step, so a resume runs that call again.
 */
function handlerRunner(handler: string, cx: StepCompileContext): ToolRunner {
  return async ({ args }, ctx) => {
    const fn = cx.deps.handlers?.get(handler)
    if (!fn) throw new HandlerNotFoundError(ctx.step, handler)
    const out = await fn(args, {
      config: undefined,
      runId: ctx.runId,
      step: ctx.step,
      seq: ctx.seq,
      signal: ctx.signal,
    })
    return JSON.stringify(out ?? null)
  }
}

/**
 * An http tool: the URL renders against the run's state (the graph's author names the
 * service; the model only fills the body), the egress policy decides on it exactly as for an
 * http step, and the call goes to the addresses it checked. The body is the arguments, and the
 * `Idempotency-Key` is `<runId>:<step>:<callId>`, the same however often the call is sent.
 * Whatever status the service answers goes back to the model as `{ status, body }`; a call that
 * gets no answer (network, timeout, egress) fails the step, so a resume sends it again.
 */
function httpRunner(method: string, url: CompiledTemplate, cx: StepCompileContext): ToolRunner {
  const injectedFetch = cx.deps.http?.fetch
  const timeoutMs = cx.deps.http?.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS
  return async ({ callId, args, state }, ctx) => {
    const rendered = await url.render(state, ctx.step)
    const { target, decision } = await allowedTarget(rendered, ctx.step, cx.egress)
    const call = `${method} ${target.origin}${target.pathname}`
    let res
    try {
      res = await sendWithRetry({
        fetch: injectedFetch ?? decision.fetch,
        url: target.href,
        method,
        headers: {
          'content-type': 'application/json',
          'idempotency-key': `${ctx.runId}:${ctx.step}:${callId}`,
        },
        body: JSON.stringify(args),
        attempts: ATTEMPTS,
        backoffMs: BACKOFF_MS,
        timeoutMs,
        signal: ctx.signal,
        maxBodyBytes: MAX_BODY_BYTES,
        retryStatus: () => true,
      })
    } catch (err) {
      const detail = err instanceof RequestFailedError ? err.message : String(err)
      const tries = err instanceof RequestFailedError ? ` after ${err.attempts} attempt(s)` : ''
      throw new HttpStepError(ctx.step, `${call} failed${tries}: ${detail}`, undefined, {
        cause: err,
      })
    }
    return JSON.stringify({
      status: res.status,
      body: parseResponseBody(res.text, res.headers['content-type']),
    })
  }
}

/**
 * Checks, before a person is asked about a call, that the tool is still what the graph version
 * pinned: an mcp tool's server is asked (the error saying how the tool changed, or null); other
 * tools are fixed by the graph itself and have no check.
 */
export type ToolPinCheck = (ctx: StepContext) => Promise<McpToolChangedError | null>

/** The pin check of one tool, or undefined for a tool the graph fixes by itself. */
export function compileToolPinCheck(
  tool: CompiledToolSpec,
  cx: StepCompileContext,
): ToolPinCheck | undefined {
  return tool.call.kind === 'mcp' ? mcpPinCheck(tool.call, cx) : undefined
}

/** The runner of one tool, its templates parsed once. */
export function compileToolRunner(
  name: string,
  tool: CompiledToolSpec,
  cx: StepCompileContext,
  path: string,
): ToolRunner {
  if (tool.call.kind === 'handler') return handlerRunner(tool.call.handler, cx)
  if (tool.call.kind === 'mcp') return mcpRunner(tool.call, cx)
  if (tool.call.kind === 'subgraph') return subgraphRunner(name, tool.call, cx, path)
  return httpRunner(tool.call.method, compileTemplate(tool.call.url, cx.limits), cx)
}
