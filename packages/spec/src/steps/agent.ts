import { END, type Json, type Router, type State, type Step, type StepContext } from '@weave/kernel'
import { approvalMaterialHash, canonicalDigest, canonicalJson } from '../canonical-json.js'
import { parseDuration } from '../duration.js'
import { LlmStepError, SpecCompileError } from '../errors.js'
import type { ExpressionLimits } from '../expression.js'
import { jsonSchemaErrors, validateAgainstSchema } from '../json-schema.js'
import { isJsonObject, isProtocolKey } from '../json-value.js'
import { toPointer } from '../problem.js'
import { compileRouter } from '../routing.js'
import { AGENT_APPROVAL_ACTIONS, type AgentStepSpec } from '../step-schema.js'
import { compileTemplate, type CompiledTemplate } from '../template.js'
import type { AgentEvent } from '../agent-events.js'
import type { ApprovalReason, ApprovalsReason } from '../yield-reasons.js'
import { inheritedBudget, tighter, type BudgetLeft, type SpentUsage } from './agent-budget.js'
import { compilePermissions, type Permission, type PermissionVerdict } from './agent-permissions.js'
import {
  compileToolPinCheck,
  compileToolRunner,
  pinnedToolSpec,
  type CompiledToolSpec,
  type ToolPinCheck,
  type ToolRunner,
} from './agent-tools.js'
import { requestChatCompletion } from './chat-completions.js'
import type { StepCompileContext } from './step-compiler.js'

const DEFAULT_MAX_TURNS = 10
const DEFAULT_MAX_TOOL_CALLS = 20

// The call id travels in the Idempotency-Key header and in approval material: printable ASCII
// without spaces keeps both unambiguous.
const CALL_ID = /^[\x21-\x7e]{1,256}$/

/** A tool call of the last model turn, not yet settled. */
interface PendingCall {
  callId: string
  tool: string
  /** The arguments exactly as the model wrote them (JSON text). */
  arguments: string
}

/** How a tool call was settled, with the decision it was settled on when a person was asked. */
interface SettledCall {
  callId: string
  tool: string
  /** null: the call never reached the permission check (unknown tool, invalid arguments). */
  permission: Permission | null
  outcome: 'ran' | 'denied' | 'rejected' | 'expired' | 'invalid'
  decision?: Json
  /** The arguments the call ran with when the approver changed them. */
  editedArguments?: State
  /** sha256 of the canonical JSON of the arguments the call ran with (set when it ran). */
  argumentsDigest?: string
  /** What a subgraph tool's child run spent on its models (counted in the conversation's usage). */
  usage?: SpentUsage
}

type StopReason = 'max-turns' | 'tokens' | 'usd' | 'max-tool-calls'

/** What the conversation's model calls have used. */
interface Usage {
  inputTokens: number
  outputTokens: number
  /** Dollars, when the step has prices for its model. */
  usd?: number
  /**
   * Input and output tokens of the latest model call: the next request repeats that whole
   * conversation, so it carries at least this many input tokens.
   */
  lastCallTokens?: number
}

/**
 * The calls of the current turn a person was asked about together: one approval each, opened
 * at the step's `seq` when it first yielded for them, and looked up by that seq and call id.
 */
interface Asking {
  seq: number
  callIds: string[]
}

/** What an agent step keeps in the state under `saveAs`: the whole conversation. */
interface Conversation {
  messages: Json[]
  usage: Usage
  turns: number
  toolCalls: number
  pending: PendingCall[]
  calls: SettledCall[]
  done: boolean
  result?: string
  stopped?: StopReason
  asking?: Asking
}

interface CompiledTool {
  spec: CompiledToolSpec
  run: ToolRunner
  /** Asked before a person is asked about a call (an mcp tool's pin). */
  pinCheck?: ToolPinCheck | undefined
}

const isCount = (v: Json | undefined): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0
const isAmount = (v: Json | undefined): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0

function isPendingCall(v: Json): boolean {
  return (
    isJsonObject(v) &&
    typeof v.callId === 'string' &&
    typeof v.tool === 'string' &&
    typeof v.arguments === 'string'
  )
}

/** The conversation saved in the state, or undefined when there is none (or not one of ours). */
function readConversation(value: Json | undefined): Conversation | undefined {
  if (!isJsonObject(value)) return undefined
  const { messages, usage, turns, toolCalls, pending, calls, done } = value
  if (!Array.isArray(messages) || !isJsonObject(usage) || !isCount(turns) || !isCount(toolCalls))
    return undefined
  if (!isCount(usage.inputTokens) || !isCount(usage.outputTokens)) return undefined
  // Budgets are counted from these: anything but a non-negative number is not a conversation.
  if (usage.usd !== undefined && !isAmount(usage.usd)) return undefined
  if (usage.lastCallTokens !== undefined && !isCount(usage.lastCallTokens)) return undefined
  if (!Array.isArray(pending) || !pending.every(isPendingCall)) return undefined
  if (typeof done !== 'boolean') return undefined
  const { asking: _asking, ...rest } = value as unknown as Conversation
  const asking = readAsking(value.asking)
  return {
    ...rest,
    calls: Array.isArray(calls) ? (calls as unknown as SettledCall[]) : [],
    ...(asking === undefined ? {} : { asking }),
  }
}

function readAsking(value: Json | undefined): Asking | undefined {
  if (!isJsonObject(value)) return undefined
  const { seq, callIds } = value
  if (!isCount(seq) || seq < 1 || !Array.isArray(callIds)) return undefined
  if (!callIds.every((id) => typeof id === 'string')) return undefined
  return { seq, callIds }
}

function countOf(usage: Json, key: string): number {
  const n = isJsonObject(usage) ? usage[key] : undefined
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0
}

/** The tool calls of an assistant message, checked so each can be answered and keyed. */
function toolCallsOf(
  message: { [k: string]: Json },
  known: ReadonlySet<string>,
  step: string,
): PendingCall[] {
  const raw = message.tool_calls
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw))
    throw new LlmStepError(step, 'the endpoint gave tool_calls that is not a list')
  const seen = new Set(known)
  return raw.map((c) => {
    const fn = isJsonObject(c) ? c.function : undefined
    if (
      !isJsonObject(c) ||
      typeof c.id !== 'string' ||
      !isJsonObject(fn) ||
      typeof fn.name !== 'string' ||
      typeof fn.arguments !== 'string'
    ) {
      throw new LlmStepError(step, 'the endpoint gave a tool call without id, name or arguments')
    }
    // A reused id would reuse an Idempotency-Key, and the service would answer the old call.
    if (!CALL_ID.test(c.id) || seen.has(c.id)) {
      throw new LlmStepError(
        step,
        `the endpoint gave an unusable tool call id ${JSON.stringify(c.id)}`,
      )
    }
    seen.add(c.id)
    return { callId: c.id, tool: fn.name, arguments: fn.arguments }
  })
}

/** Every tool call id the conversation has seen, from its assistant messages. */
function knownCallIds(messages: ReadonlyArray<Json>): Set<string> {
  const ids = new Set<string>()
  for (const m of messages) {
    if (!isJsonObject(m) || !Array.isArray(m.tool_calls)) continue
    for (const c of m.tool_calls) if (isJsonObject(c) && typeof c.id === 'string') ids.add(c.id)
  }
  return ids
}

/** The text of the assistant message that made a call ('' when it had none). */
function assistantTextOf(messages: ReadonlyArray<Json>, callId: string): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!isJsonObject(m) || !Array.isArray(m.tool_calls)) continue
    if (m.tool_calls.some((c) => isJsonObject(c) && c.id === callId)) {
      return typeof m.content === 'string' ? m.content : ''
    }
  }
  return ''
}

/**
 * The arguments the approvers changed the call to, undefined when they approved it as asked, or
 * `conflict` when they did not all approve the same call: under a quorum an edit counts only when
 * every approving decision carries that same edit, so no approver's change reaches the world
 * without the others having approved exactly it.
 */
function editedArguments(record: { [k: string]: Json }): { edit: Json } | undefined | 'conflict' {
  const decisions = Array.isArray(record.decisions) ? record.decisions : []
  const approvals = decisions.filter((d) => isJsonObject(d) && d.decision === 'approve')
  const edits = approvals.map((d) =>
    isJsonObject(d) && isJsonObject(d.input) ? d.input.arguments : undefined,
  )
  if (edits.every((e) => e === undefined)) return undefined
  if (edits.some((e) => e === undefined)) return 'conflict'
  const first = canonicalJson(edits[0]!)
  return edits.every((e) => canonicalJson(e!) === first) ? { edit: edits[0]! } : 'conflict'
}

/** The text a person sent instead of letting the call run: the rejecting decision's comment. */
function responseOf(record: { [k: string]: Json }): string | undefined {
  const decisions = Array.isArray(record.decisions) ? record.decisions : []
  const rejection = [...decisions].reverse().find((d) => isJsonObject(d) && d.decision === 'reject')
  const comment = isJsonObject(rejection) ? rejection.comment : undefined
  return typeof comment === 'string' && comment.trim() !== '' ? comment : undefined
}

/** The arguments as the tool would get them, or why they cannot be given to it. */
function checkArguments(
  text: string,
  schema: Json,
): { args: State; problems?: undefined } | { problems: string } {
  let value: Json
  try {
    value = JSON.parse(text) as Json
  } catch {
    return { problems: 'the arguments are not valid JSON' }
  }
  if (!isJsonObject(value)) return { problems: 'the arguments are not a JSON object' }
  // Rules see the arguments as expressions see a state, without `__` keys: a call carrying one
  // would reach the tool with something no rule could look at.
  const reserved = Object.keys(value).find(isProtocolKey)
  if (reserved !== undefined)
    return { problems: `/${reserved}: keys starting with "__" are reserved` }
  const problems = validateAgainstSchema(schema, value)
  if (problems.length > 0) {
    return { problems: problems.map((p) => `${p.path || '/'}: ${p.message}`).join('; ') }
  }
  return { args: value }
}

/**
 * `agent`: a model that calls tools, each call passing the step's permission rules first. The
 * conversation lives in the state under `saveAs` (default: the step's name), and each run of
 * the step does one unit of work on it: one model call (its reply, tool calls included, saved
 * before any of them runs) or settling one pending tool call (its result saved before the next
 * model call; read-only calls the rules allow, next to each other in one reply, are settled
 * together and run concurrently). Its router (compileAgentRouter) brings the run back to the step until the
 * conversation is done, so the kernel checkpoints between units: a resumed run never asks the
 * model again for a turn it has, nor runs again a call whose result it has.
 *
 * A call is checked in this order: a known tool, JSON arguments valid against its `parameters`
 * (else the model is told why), the rules (`deny`: the model is told; `allow`: it runs; `ask`:
 * unless its mcp tool changed since its pin, which refuses it, the step yields once with one
 * approval for every call of the turn the rules send to a person, each whose material is that
 * exact call, and runs each only with a settled approval on its material from
 * `deps.approvals`). The permission is decided again
 * each time from the arguments in the state, and no decision is ever read from the state, so
 * nothing a client writes into the conversation can allow a call.
 * @throws SpecCompileError when a tool's `parameters` is not a usable JSON Schema.
 */
export function compileAgentStep(name: string, step: AgentStepSpec, cx: StepCompileContext): Step {
  const system = step.system === undefined ? undefined : compileTemplate(step.system, cx.limits)
  const prompt = compileTemplate(step.prompt, cx.limits)
  const saveAs = step.saveAs ?? name
  const maxTurns = step.limits?.maxTurns ?? DEFAULT_MAX_TURNS
  const maxToolCalls = step.limits?.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS
  const tokenLimit = step.limits?.tokens
  const usdLimit = step.limits?.usd
  const price = step.prices?.[step.model]
  const permissions = compilePermissions(step.permissions ?? [], cx.limits)
  const titles = new Map<object, CompiledTemplate>()
  for (const rule of step.permissions ?? []) {
    if (rule.approval?.title !== undefined) {
      titles.set(rule, compileTemplate(rule.approval.title, cx.limits))
    }
  }
  const tools = new Map<string, CompiledTool>()
  const problems = []
  for (const [tool, declared] of Object.entries(step.tools)) {
    const spec = pinnedToolSpec(declared)
    if (spec === undefined) {
      problems.push({
        path: toPointer(['steps', name, 'tools', tool, 'call']),
        message: 'an mcp tool is pinned when its graph version is registered; this one never was',
      })
      continue
    }
    const at = toPointer(['steps', name, 'tools', tool, 'parameters'])
    for (const e of jsonSchemaErrors(spec.parameters)) {
      problems.push({ path: `${at}${e.path}`, message: `not a valid JSON Schema: ${e.message}` })
    }
    const path = toPointer(['steps', name, 'tools', tool, 'call'])
    tools.set(tool, {
      spec,
      run: compileToolRunner(tool, spec, cx, path),
      pinCheck: compileToolPinCheck(spec, cx),
    })
  }
  if (problems.length > 0) throw new SpecCompileError(problems)
  const toolDefinitions = [...tools].map(([tool, { spec }]) => ({
    type: 'function',
    function: { name: tool, description: spec.description, parameters: spec.parameters },
  }))

  const save = (conversation: Conversation) => ({ [saveAs]: conversation as unknown as Json })

  const costOf = (inputTokens: number, outputTokens: number) =>
    price === undefined ? 0 : (inputTokens * price.input + outputTokens * price.output) / 1e6

  function addUsage(usage: Usage, inputTokens: number, outputTokens: number): Usage {
    return {
      inputTokens: usage.inputTokens + inputTokens,
      outputTokens: usage.outputTokens + outputTokens,
      ...(price === undefined ? {} : { usd: (usage.usd ?? 0) + costOf(inputTokens, outputTokens) }),
      lastCallTokens: inputTokens + outputTokens,
    }
  }

  /**
   * The step's budgets, tightened to what the calling agent has left when the step runs in a
   * subgraph tool's child run.
   */
  function budgets(): { tokens: number | undefined; usd: number | undefined } {
    const left = inheritedBudget()
    return { tokens: tighter(tokenLimit, left?.tokens), usd: tighter(usdLimit, left?.usd) }
  }

  /** What is left of the budgets after `usage`: the limits of a subgraph tool's agents. */
  function budgetLeft(usage: Usage): BudgetLeft {
    const { tokens, usd } = budgets()
    return {
      ...(tokens === undefined
        ? {}
        : { tokens: Math.max(0, tokens - usage.inputTokens - usage.outputTokens) }),
      ...(usd === undefined ? {} : { usd: Math.max(0, usd - (usage.usd ?? 0)) }),
    }
  }

  /** The usage with what a tool's child run spent added. */
  function withSpent(usage: Usage, spent: SpentUsage | undefined): Usage {
    if (spent === undefined) return usage
    const usd =
      usage.usd === undefined && spent.usd === undefined
        ? undefined
        : (usage.usd ?? 0) + (spent.usd ?? 0)
    return {
      ...usage,
      inputTokens: usage.inputTokens + spent.inputTokens,
      outputTokens: usage.outputTokens + spent.outputTokens,
      ...(usd === undefined ? {} : { usd }),
    }
  }

  /** Runs a tool call within the budgets left, with what its child run spent, if any. */
  async function runTool(
    tool: CompiledTool,
    call: { callId: string; args: State; state: Readonly<State> },
    c: Conversation,
    ctx: StepContext,
  ): Promise<{ content: string; spent?: SpentUsage }> {
    let spent: SpentUsage | undefined
    const content = await tool.run(
      { ...call, budget: budgetLeft(c.usage), spend: (u) => (spent = u) },
      ctx,
    )
    return spent === undefined ? { content } : { content, spent }
  }

  /**
   * Whether the next model call fits the budgets, and the most tokens its reply may have. The
   * request carries at least the previous call's tokens again (the conversation only grows), so
   * a call whose input alone would pass a budget is never made, and the reply is capped
   * (`max_tokens`) to what is left after that input.
   */
  function nextCallBudget(usage: Usage): { stop: StopReason } | { maxTokens?: number } {
    const { tokens: tokenLimit, usd: usdLimit } = budgets()
    const input = usage.lastCallTokens ?? 0
    let maxTokens = Infinity
    if (tokenLimit !== undefined) {
      const left = tokenLimit - usage.inputTokens - usage.outputTokens - input
      if (left < 1) return { stop: 'tokens' }
      maxTokens = left
    }
    if (usdLimit !== undefined && price !== undefined) {
      const left = usdLimit - (usage.usd ?? 0) - costOf(input, 0)
      const tokens = price.output === 0 ? Infinity : Math.floor((left * 1e6) / price.output)
      if (left <= 0 || tokens < 1) return { stop: 'usd' }
      maxTokens = Math.min(maxTokens, tokens)
    }
    return Number.isFinite(maxTokens) ? { maxTokens } : {}
  }

  /** A budget the conversation has already used up, if any. */
  function budgetUsed(usage: Usage): StopReason | undefined {
    const { tokens: tokenLimit, usd: usdLimit } = budgets()
    if (tokenLimit !== undefined && usage.inputTokens + usage.outputTokens >= tokenLimit) {
      return 'tokens'
    }
    if (usdLimit !== undefined && (usage.usd ?? 0) >= usdLimit) return 'usd'
    return undefined
  }
  const stop = (c: Conversation, stopped: StopReason) => save({ ...c, done: true, stopped })

  async function start(state: Readonly<State>, ctx: StepContext): Promise<Conversation> {
    const messages: Json[] = []
    if (system !== undefined) {
      messages.push({ role: 'system', content: await system.render(state, ctx.step) })
    }
    messages.push({ role: 'user', content: await prompt.render(state, ctx.step) })
    const usage = { inputTokens: 0, outputTokens: 0 }
    return { messages, usage, turns: 0, toolCalls: 0, pending: [], calls: [], done: false }
  }

  async function callModel(
    c: Conversation,
    maxTokens: number | undefined,
    ctx: StepContext,
  ): Promise<Conversation> {
    const request = {
      model: step.model,
      messages: c.messages,
      ...(toolDefinitions.length > 0 ? { tools: toolDefinitions } : {}),
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    }
    const { message, usage } = await requestChatCompletion(cx.deps.llm, request, ctx)
    const calls = toolCallsOf(message, knownCallIds(c.messages), ctx.step)
    const content = typeof message.content === 'string' ? message.content : null
    // Only what the endpoint needs back is kept, so the next request carries no stray fields.
    const assistant: Json = {
      role: 'assistant',
      content,
      ...(calls.length === 0
        ? {}
        : {
            tool_calls: calls.map((call) => ({
              id: call.callId,
              type: 'function',
              function: { name: call.tool, arguments: call.arguments },
            })),
          }),
    }
    const { asking: _asked, ...previous } = c
    const next: Conversation = {
      ...previous,
      messages: [...c.messages, assistant],
      usage: addUsage(
        c.usage,
        countOf(usage, 'prompt_tokens'),
        countOf(usage, 'completion_tokens'),
      ),
      turns: c.turns + 1,
      pending: calls,
    }
    return calls.length === 0 ? { ...next, done: true, result: content ?? '' } : next
  }

  /** What a person is asked about a call the rules send to them, and what they may do. */
  async function askFor(
    c: Conversation,
    call: PendingCall,
    tool: CompiledTool,
    args: State,
    verdict: PermissionVerdict,
    ctx: StepContext,
    seq: number,
  ) {
    const titleTemplate = verdict.rule === undefined ? undefined : titles.get(verdict.rule)
    const title =
      titleTemplate === undefined
        ? `Allow ${call.tool}?`
        : await titleTemplate.render(args, ctx.step)
    const allowed = verdict.rule?.approval?.allow
    const may = (action: (typeof AGENT_APPROVAL_ACTIONS)[number]) =>
      allowed === undefined || allowed.includes(action)
    const details: Json = {
      tool: call.tool,
      arguments: args,
      callId: call.callId,
      assistantMessage: assistantTextOf(c.messages, call.callId),
      // What the approver may do is part of what they are shown, and of the material.
      ...(allowed === undefined ? {} : { allow: [...allowed] }),
    }
    const approval = verdict.rule?.approval
    const reason: ApprovalReason & { callId: string } = {
      kind: 'approval',
      runId: ctx.runId,
      step: ctx.step,
      seq,
      title,
      details,
      materialHash: approvalMaterialHash(title, details),
      approvers: approval?.approvers ?? null,
      required: approval?.required ?? 1,
      separationOfDuties: approval?.separationOfDuties ?? false,
      timeoutMs: approval?.timeout === undefined ? null : parseDuration(approval.timeout),
      onTimeout: 'expire',
      // Not a state key: the decision is kept in the conversation, with the call it settled.
      saveAs: `${saveAs}/calls/${call.callId}`,
      // An approver may send changed arguments (`input.arguments`), checked against the tool's
      // schema before the decision is recorded; where the rule allows no edit, no input at all.
      inputSchema: {
        type: 'object',
        properties: may('edit') ? { arguments: tool.spec.parameters } : {},
        additionalProperties: false,
      },
      callId: call.callId,
    }
    return { reason, may }
  }

  /**
   * Yields one approval for each pending call of the turn the rules send to a person (the first
   * pending call among them), all open at once: each is decided on its own, and the run resumes
   * once every one is settled. Calls beyond the step's call limit are not asked about.
   */
  async function askAll(c: Conversation, ctx: StepContext) {
    const first = c.pending[0]!
    const seq = c.asking?.callIds.includes(first.callId) ? c.asking.seq : ctx.seq
    const approvals: Array<ApprovalReason & { callId: string }> = []
    let runs = c.toolCalls
    for (const call of c.pending) {
      const tool = tools.get(call.tool)
      if (!tool) continue
      const checked = checkArguments(call.arguments, tool.spec.parameters)
      if (checked.problems !== undefined) continue
      const verdict = await permissions.decide(
        call.tool,
        tool.spec.readOnly === true,
        checked.args,
        ctx.step,
      )
      if (verdict.permission === 'deny') continue
      if (runs >= maxToolCalls) break
      runs += 1
      if (verdict.permission === 'allow') continue
      // A call to a tool its server changed is refused when its turn comes, never asked about.
      if (call !== first && tool.pinCheck && (await tool.pinCheck(ctx)) !== null) continue
      approvals.push((await askFor(c, call, tool, checked.args, verdict, ctx, seq)).reason)
    }
    const reason: ApprovalsReason = {
      kind: 'approvals',
      runId: ctx.runId,
      step: ctx.step,
      seq,
      approvals,
    }
    const asking = { seq, callIds: approvals.map((a) => a.callId) }
    return { __yield: true, __yield_reason: reason, ...save({ ...c, asking }) }
  }

  async function settleNext(c: Conversation, state: Readonly<State>, ctx: StepContext) {
    const [call, ...rest] = c.pending as [PendingCall, ...PendingCall[]]
    const settle = (content: string, settled: Omit<SettledCall, 'callId' | 'tool'>) =>
      save({
        ...c,
        messages: [...c.messages, { role: 'tool', tool_call_id: call.callId, content }],
        pending: rest,
        calls: [...c.calls, { callId: call.callId, tool: call.tool, ...settled }],
        toolCalls: c.toolCalls + (settled.outcome === 'ran' ? 1 : 0),
        usage: withSpent(c.usage, settled.usage),
      })
    /** Settles the call with the result of running it, and what its child run spent. */
    const ran = (
      result: { content: string; spent?: SpentUsage },
      settled: Omit<SettledCall, 'callId' | 'tool'>,
    ) => settle(result.content, { ...settled, ...(result.spent ? { usage: result.spent } : {}) })
    const tool = tools.get(call.tool)
    if (!tool) {
      return settle(`There is no tool "${call.tool}"; the call was not run.`, {
        permission: null,
        outcome: 'invalid',
      })
    }
    const checked = checkArguments(call.arguments, tool.spec.parameters)
    if (checked.problems !== undefined) {
      return settle(`The arguments are invalid, so the call was not run: ${checked.problems}`, {
        permission: null,
        outcome: 'invalid',
      })
    }
    const { args } = checked
    const verdict = await permissions.decide(call.tool, tool.spec.readOnly === true, args, ctx.step)
    if (verdict.permission === 'deny') {
      return settle('This call was refused by policy; it was not run.', {
        permission: 'deny',
        outcome: 'denied',
      })
    }
    if (c.toolCalls >= maxToolCalls) return stop(c, 'max-tool-calls')
    const run = () => runTool(tool, { callId: call.callId, args, state }, c, ctx)
    if (verdict.permission === 'allow') {
      return ran(await run(), {
        permission: 'allow',
        outcome: 'ran',
        argumentsDigest: canonicalDigest(args),
      })
    }
    // A call asked about with its turn's others is looked up by its own approval; a call asked
    // about on its own (a conversation saved before calls were asked about together) by the
    // approval the resume named.
    const asked = c.asking?.callIds.includes(call.callId) ? c.asking : undefined
    const { reason, may } = await askFor(c, call, tool, args, verdict, ctx, asked?.seq ?? ctx.seq)
    if ((ctx.resumeInput !== undefined || asked !== undefined) && cx.deps.approvals) {
      const record = await cx.deps.approvals.decision({
        runId: ctx.runId,
        step: ctx.step,
        seq: reason.seq,
        materialHash: reason.materialHash,
        ...(asked === undefined ? {} : { callId: call.callId }),
      })
      if (isJsonObject(record)) {
        if (record.status === 'approved') {
          const edited = editedArguments(record)
          if (edited === 'conflict') {
            return settle('The approvers did not approve the same call; it was not run.', {
              permission: 'ask',
              outcome: 'denied',
              decision: record,
            })
          }
          if (edited === undefined) {
            if (!may('accept')) {
              return settle(
                'The call was approved as asked, which its rule does not allow; it was not run.',
                {
                  permission: 'ask',
                  outcome: 'denied',
                  decision: record,
                },
              )
            }
            return ran(await run(), {
              permission: 'ask',
              outcome: 'ran',
              decision: record,
              argumentsDigest: canonicalDigest(args),
            })
          }
          // The approver changed the arguments: the changed call runs, if it is a valid call the
          // rules do not deny; the record keeps both.
          const checkedEdit = checkArguments(JSON.stringify(edited.edit), tool.spec.parameters)
          const editVerdict =
            checkedEdit.problems === undefined
              ? await permissions.decide(call.tool, false, checkedEdit.args, ctx.step)
              : undefined
          // The changed call runs only where the rule that was approved (or no rule at all)
          // governs it: a change that moves it under another rule, with other approvers, runs
          // nothing on this approval.
          const sameRule =
            editVerdict !== undefined &&
            (editVerdict.permission === 'allow' || editVerdict.rule === verdict.rule)
          if (checkedEdit.problems !== undefined || !sameRule) {
            return settle('The changed call a person approved is not allowed; it was not run.', {
              permission: 'ask',
              outcome: 'denied',
              decision: record,
            })
          }
          const result = await runTool(
            tool,
            { callId: call.callId, args: checkedEdit.args, state },
            c,
            ctx,
          )
          return ran(result, {
            permission: 'ask',
            outcome: 'ran',
            decision: record,
            editedArguments: checkedEdit.args,
            argumentsDigest: canonicalDigest(checkedEdit.args),
          })
        }
        const expired = record.status === 'expired'
        // Without `respond`, a person's comment is kept on the record but not given to the model.
        const answer = expired || !may('respond') ? undefined : responseOf(record)
        const told = expired
          ? 'No person approved this call before its approval expired; it was not run.'
          : answer !== undefined
            ? `A person answered instead of running this call: ${answer}`
            : 'A person refused this call; it was not run.'
        return settle(told, {
          permission: 'ask',
          outcome: expired ? 'expired' : 'rejected',
          decision: record,
        })
      }
    }
    // No one is asked to approve a call to a tool that is no longer what the graph pinned.
    const changed = tool.pinCheck ? await tool.pinCheck(ctx) : null
    if (changed !== null) {
      return settle(`${changed.message}. The call was not run.`, {
        permission: 'ask',
        outcome: 'invalid',
      })
    }
    return askAll(c, ctx)
  }

  /**
   * The leading pending calls that may run together: known read-only tools, valid arguments,
   * allowed by the rules, within the step's call limit. Reading cannot change the world, so they
   * run concurrently in one unit; a crash during them sends them all again.
   */
  async function readOnlyBatch(c: Conversation, ctx: StepContext) {
    const batch: Array<{ call: PendingCall; tool: CompiledTool; args: State }> = []
    for (const call of c.pending) {
      const tool = tools.get(call.tool)
      if (tool?.spec.readOnly !== true) break
      const checked = checkArguments(call.arguments, tool.spec.parameters)
      if (checked.problems !== undefined) break
      const verdict = await permissions.decide(call.tool, true, checked.args, ctx.step)
      if (verdict.permission !== 'allow') break
      if (c.toolCalls + batch.length >= maxToolCalls) break
      batch.push({ call, tool, args: checked.args })
    }
    return batch
  }

  async function settleReadOnly(
    c: Conversation,
    batch: Awaited<ReturnType<typeof readOnlyBatch>>,
    state: Readonly<State>,
    ctx: StepContext,
  ) {
    const results = await Promise.all(
      batch.map(({ call, tool, args }) =>
        runTool(tool, { callId: call.callId, args, state }, c, ctx),
      ),
    )
    const usage = results.reduce((u, r) => withSpent(u, r.spent), c.usage)
    return save({
      ...c,
      usage,
      messages: [
        ...c.messages,
        ...batch.map(({ call }, i) => ({
          role: 'tool',
          tool_call_id: call.callId,
          content: results[i]!.content,
        })),
      ],
      pending: c.pending.slice(batch.length),
      calls: [
        ...c.calls,
        ...batch.map(({ call, args }, i) => ({
          callId: call.callId,
          tool: call.tool,
          permission: 'allow' as const,
          outcome: 'ran' as const,
          argumentsDigest: canonicalDigest(args),
          ...(results[i]!.spent ? { usage: results[i]!.spent } : {}),
        })),
      ],
      toolCalls: c.toolCalls + batch.length,
    })
  }

  async function unit(c: Conversation, state: Readonly<State>, ctx: StepContext) {
    const used = budgetUsed(c.usage)
    if (used !== undefined) return stop(c, used)
    if (c.pending.length > 0) {
      const batch = await readOnlyBatch(c, ctx)
      if (batch.length > 1) return settleReadOnly(c, batch, state, ctx)
      return settleNext(c, state, ctx)
    }
    if (c.turns >= maxTurns) return stop(c, 'max-turns')
    const budget = nextCallBudget(c.usage)
    if ('stop' in budget) return stop(c, budget.stop)
    return save(await callModel(c, budget.maxTokens, ctx))
  }

  return async (state, ctx) => {
    const saved = readConversation(state[saveAs])
    // A finished conversation is only seen when a route leads back into the step: a new one.
    const c = saved === undefined || saved.done ? await start(state, ctx) : saved
    const delta = await unit(c, state, ctx)
    const after = readConversation((delta as Record<string, Json | undefined>)[saveAs])
    if (after !== undefined && cx.deps.agentEvents) {
      const readOnly = (tool: string) => tools.get(tool)?.spec.readOnly === true
      const events = unitEvents(c, after, ctx.step, readOnly)
      if (events.length > 0) cx.deps.agentEvents({ runId: ctx.runId, seq: ctx.seq }, events)
    }
    return delta
  }
}

/** What a unit of work did, read from the conversation before and after it. */
function unitEvents(
  before: Conversation,
  after: Conversation,
  step: string,
  readOnly: (tool: string) => boolean,
): AgentEvent[] {
  const events: AgentEvent[] = []
  if (after.turns > before.turns) {
    const reply = after.messages.at(-1)
    const content = isJsonObject(reply) && typeof reply.content === 'string' ? reply.content : null
    events.push({
      type: 'agent.message',
      data: {
        step,
        turn: after.turns,
        content,
        toolCalls: after.pending.map(({ callId, tool }) => ({ callId, tool })),
      },
    })
    for (const call of after.pending) {
      events.push({
        type: 'tool.requested',
        data: { step, callId: call.callId, tool: call.tool, arguments: call.arguments },
      })
    }
  }
  for (const settled of after.calls.slice(before.calls.length)) {
    const call = { step, callId: settled.callId, tool: settled.tool }
    const decision = isJsonObject(settled.decision) ? settled.decision : undefined
    const approvalId = typeof decision?.approvalId === 'string' ? decision.approvalId : null
    if (settled.permission === 'ask' && settled.outcome !== 'invalid') {
      const status = settled.outcome === 'ran' ? 'approved' : settled.outcome
      if (status === 'approved' || status === 'rejected' || status === 'expired') {
        events.push({ type: 'tool.decided', data: { ...call, approvalId, status } })
      }
    }
    if (settled.outcome === 'ran') {
      events.push({
        type: 'tool.completed',
        data: {
          ...call,
          readOnly: readOnly(settled.tool),
          argumentsDigest: settled.argumentsDigest ?? null,
          approvalId,
          edited: settled.editedArguments !== undefined,
        },
      })
    } else if (settled.outcome === 'denied' || settled.outcome === 'invalid') {
      const reason = settled.outcome === 'denied' ? 'policy' : 'invalid'
      events.push({ type: 'tool.denied', data: { ...call, reason } })
    }
  }
  if (after.stopped !== undefined && before.stopped === undefined) {
    const { inputTokens, outputTokens, usd } = after.usage
    events.push({
      type: 'agent.stopped',
      data: {
        step,
        reason: after.stopped,
        usage: { inputTokens, outputTokens, ...(usd === undefined ? {} : { usd }) },
      },
    })
  }
  return events
}

/**
 * The router of an agent step: back to the step itself until its conversation is done, then
 * the step's own `next`.
 */
export function compileAgentRouter(
  name: string,
  step: AgentStepSpec,
  limits: ExpressionLimits,
): Router {
  const saveAs = step.saveAs ?? name
  const after = compileRouter(step.next, limits)
  return async (state, ctx) => {
    const c = state[saveAs]
    if (!isJsonObject(c) || c.done !== true) return name
    return after === undefined ? END : after(state, ctx)
  }
}
