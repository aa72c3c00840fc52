import { z } from 'zod'
import { Next } from './routing-schema.js'
import {
  Duration,
  Expression,
  GraphName,
  HandlerName,
  JsonSchemaDocument,
  StateKey,
  StepName,
  Template,
} from './schema-primitives.js'

const HttpStatus = z.int().min(100).max(599)

const setFields = { kind: z.literal('set'), values: z.record(StateKey, Expression) }

const approvalFields = {
  kind: z.literal('approval'),
  title: Template,
  details: Expression.optional(),
  approvers: z
    .strictObject({
      subjects: z.array(z.string().min(1)).optional(),
      scopes: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  required: z.int().min(1).max(100).optional(),
  separationOfDuties: z.boolean().optional(),
  timeout: Duration.optional(),
  onTimeout: z.enum(['expire', 'fail']).optional(),
  saveAs: StateKey.optional(),
  /** JSON Schema every decision's `input` must satisfy (saved with the decision). */
  schema: JsonSchemaDocument.optional(),
}

const inputFields = {
  kind: z.literal('input'),
  schema: JsonSchemaDocument.optional(),
  prompt: Template.optional(),
  saveAs: StateKey.optional(),
}

const httpFields = {
  kind: z.literal('http'),
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: Template,
  headers: z
    .record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: 'not an HTTP header name' }),
      Template,
    )
    .optional(),
  body: Expression.optional(),
  timeoutMs: z.int().min(1).max(300_000).optional(),
  retry: z
    .strictObject({
      attempts: z.int().min(1).max(10),
      backoffMs: z.int().min(0).max(60_000).optional(),
    })
    .optional(),
  expectStatus: z.union([HttpStatus, z.array(HttpStatus).min(1)]).optional(),
  saveAs: StateKey.optional(),
}

const llmFields = {
  kind: z.literal('llm'),
  model: z.string().min(1),
  system: Template.optional(),
  prompt: Template,
  json: z.boolean().optional(),
  saveAs: StateKey.optional(),
}

const waitFields = {
  kind: z.literal('wait'),
  duration: Duration.optional(),
  until: Expression.optional(),
  saveAs: StateKey.optional(),
}

const subgraphFields = {
  kind: z.literal('subgraph'),
  graph: GraphName,
  version: z.int().min(1).optional(),
  input: Expression.optional(),
  saveAs: StateKey.optional(),
}

const handlerFields = {
  kind: z.literal('handler'),
  name: HandlerName,
  config: z.json().optional(),
}

const failFields = { kind: z.literal('fail'), message: Template }

// An MCP server is a fixed endpoint, not a template: it is listed when the graph is registered.
const McpServerUrl = z
  .string()
  .max(2048)
  .refine(
    (text) => {
      try {
        const url = new URL(text)
        const web = url.protocol === 'http:' || url.protocol === 'https:'
        return web && url.username === '' && url.password === ''
      } catch {
        return false
      }
    },
    { error: 'an MCP server is an absolute http or https URL without credentials' },
  )

/** What an approver may do with an agent's tool call. */
export const AGENT_APPROVAL_ACTIONS = ['accept', 'edit', 'respond', 'ignore'] as const

/** A tool name as chat-completion endpoints accept function names. */
export const AGENT_TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

const AgentToolCall = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('handler'), handler: HandlerName }),
    // The arguments are the request body, so only methods that carry one.
    z.strictObject({
      kind: z.literal('http'),
      method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
      url: Template,
    }),
    // The tool as the server lists it is pinned by `digest` when the graph version is
    // registered (the author may leave it out); a call refuses a tool that no longer matches.
    z.strictObject({
      kind: z.literal('mcp'),
      server: McpServerUrl,
      tool: z.string().min(1).max(128),
      digest: z
        .string()
        .regex(/^[0-9a-f]{64}$/, { error: 'a digest is 64 lowercase hex digits (SHA-256)' })
        .optional(),
    }),
    // A registered graph that runs to its end without waiting; the arguments are its input.
    z.strictObject({
      kind: z.literal('subgraph'),
      graph: GraphName,
      version: z.int().min(1).optional(),
    }),
  ],
  {
    error:
      'a tool call is { kind: "handler", handler }, { kind: "http", method, url }, { kind: "mcp", server, tool } or { kind: "subgraph", graph, version? }',
  },
)

const AgentTool = z
  .strictObject({
    /** Absent only for an mcp tool before registration fills in the server's. */
    description: z.string().optional(),
    /**
     * JSON Schema (draft 2020-12) of the arguments: an object schema, checked with ajv
     * separately. Absent only for an mcp tool before registration fills in the server's.
     */
    parameters: z
      .record(z.string(), z.json())
      .refine((p) => p.type === 'object', { error: 'tool parameters are an object schema' })
      .optional(),
    readOnly: z.boolean().optional(),
    call: AgentToolCall,
  })
  .superRefine((tool, ctx) => {
    if (tool.call.kind === 'mcp') return
    for (const field of ['description', 'parameters'] as const) {
      if (tool[field] === undefined) {
        ctx.addIssue({ code: 'custom', message: 'required', path: [field], input: undefined })
      }
    }
  })

const AgentPermission = z.strictObject({
  tool: z.string().regex(/^[A-Za-z0-9_*-]{1,64}$/, {
    error: 'a rule names a tool, or a pattern of tool names with *',
  }),
  when: Expression.optional(),
  permission: z.enum(['allow', 'ask', 'deny']),
  approval: z
    .strictObject({
      title: Template.optional(),
      approvers: approvalFields.approvers,
      required: approvalFields.required,
      separationOfDuties: approvalFields.separationOfDuties,
      timeout: approvalFields.timeout,
      /**
       * What an approver may do with the call (default: all four): `accept` runs it as asked,
       * `edit` runs it with changed arguments, `respond` answers the model instead, `ignore`
       * refuses it without an answer.
       */
      allow: z
        .array(z.enum(AGENT_APPROVAL_ACTIONS))
        .min(1)
        .refine((a) => new Set(a).size === a.length, { error: 'each action once' })
        .optional(),
    })
    .optional(),
})

const agentFields = {
  kind: z.literal('agent'),
  model: z.string().min(1),
  system: Template.optional(),
  prompt: Template,
  tools: z.record(
    z.string().regex(AGENT_TOOL_NAME_PATTERN, {
      error: `a tool name must match ${AGENT_TOOL_NAME_PATTERN.source}`,
    }),
    AgentTool,
  ),
  permissions: z.array(AgentPermission).optional(),
  limits: z
    .strictObject({
      maxTurns: z.int().min(1).max(1000).optional(),
      maxToolCalls: z.int().min(0).max(1000).optional(),
      tokens: z.int().min(1).optional(),
      /** Dollars the conversation may cost, priced with `prices` of the step's model. */
      usd: z.number().positive().optional(),
    })
    .optional(),
  /** Dollars per million input and output tokens, by model name. */
  prices: z
    .record(
      z.string().min(1),
      z.strictObject({ input: z.number().min(0), output: z.number().min(0) }),
    )
    .optional(),
  saveAs: StateKey.optional(),
}

const next = { next: Next.optional() }

function httpBodyAllowed(s: { method: string; body?: string | undefined }): boolean {
  return s.body === undefined || (s.method !== 'GET' && s.method !== 'HEAD')
}
const httpBodyRule = { error: 'GET and HEAD requests have no body', path: ['body'] }

function oneOfDurationUntil(s: { duration?: string | undefined; until?: string | undefined }) {
  return (s.duration === undefined) !== (s.until === undefined)
}
const waitRule = { error: 'a wait step has exactly one of duration or until' }

// A rule naming a tool the step does not have is a typo that would leave its tool unguarded,
// approval settings on a rule that never asks would be silently ignored, and a dollar budget
// without a price for the model could never be counted.
function agentRuleProblems(
  s: {
    model: string
    tools: Record<string, unknown>
    permissions?: Array<{ tool: string; permission: string; approval?: unknown }> | undefined
    limits?: { usd?: number | undefined } | undefined
    prices?: Record<string, unknown> | undefined
  },
  ctx: z.RefinementCtx,
): void {
  if (s.limits?.usd !== undefined && !Object.hasOwn(s.prices ?? {}, s.model)) {
    ctx.addIssue({
      code: 'custom',
      message: `limits.usd needs prices["${s.model}"] (dollars per million input and output tokens)`,
      path: ['limits', 'usd'],
      input: s.limits.usd,
    })
  }
  s.permissions?.forEach((rule, i) => {
    if (!rule.tool.includes('*') && !Object.hasOwn(s.tools, rule.tool)) {
      ctx.addIssue({
        code: 'custom',
        message: `no tool "${rule.tool}" in this step's tools`,
        path: ['permissions', i, 'tool'],
        input: rule.tool,
      })
    }
    if (rule.approval !== undefined && rule.permission !== 'ask') {
      ctx.addIssue({
        code: 'custom',
        message: 'approval settings belong to an "ask" rule',
        path: ['permissions', i, 'approval'],
        input: rule.approval,
      })
    }
  })
}

/** Writes the evaluated values into state. */
export const SetStepSpec = z.strictObject({ ...setFields, ...next })
export type SetStepSpec = z.infer<typeof SetStepSpec>
/** Yields and opens an approval. */
export const ApprovalStepSpec = z.strictObject({ ...approvalFields, ...next })
export type ApprovalStepSpec = z.infer<typeof ApprovalStepSpec>
/** Yields for generic outside input. */
export const InputStepSpec = z.strictObject({ ...inputFields, ...next })
export type InputStepSpec = z.infer<typeof InputStepSpec>
/** Calls an outside HTTP service. */
export const HttpStepSpec = z
  .strictObject({ ...httpFields, ...next })
  .refine(httpBodyAllowed, httpBodyRule)
export type HttpStepSpec = z.infer<typeof HttpStepSpec>
/** One chat completion. */
export const LlmStepSpec = z.strictObject({ ...llmFields, ...next })
export type LlmStepSpec = z.infer<typeof LlmStepSpec>
/** A durable timer. */
export const WaitStepSpec = z
  .strictObject({ ...waitFields, ...next })
  .refine(oneOfDurationUntil, waitRule)
export type WaitStepSpec = z.infer<typeof WaitStepSpec>
/** Runs another registered graph as a child run. */
export const SubgraphStepSpec = z.strictObject({ ...subgraphFields, ...next })
export type SubgraphStepSpec = z.infer<typeof SubgraphStepSpec>
/** Calls a function registered with `defineHandler`. */
export const HandlerStepSpec = z.strictObject({ ...handlerFields, ...next })
export type HandlerStepSpec = z.infer<typeof HandlerStepSpec>
/** An LLM that calls tools under declarative permissions, one model turn or tool call a step. */
export const AgentStepSpec = z
  .strictObject({ ...agentFields, ...next })
  .superRefine(agentRuleProblems)
export type AgentStepSpec = z.infer<typeof AgentStepSpec>
/** Fails the run with a rendered message. */
export const FailStepSpec = z.strictObject({ ...failFields, ...next })
export type FailStepSpec = z.infer<typeof FailStepSpec>

/** The step kinds a parallel branch may have. */
export const PARALLEL_BRANCH_KINDS = ['set', 'http', 'llm', 'handler', 'subgraph'] as const

/** Every step kind. */
export const STEP_KINDS = [
  'set',
  'approval',
  'input',
  'http',
  'llm',
  'wait',
  'subgraph',
  'parallel',
  'handler',
  'fail',
  'agent',
] as const
export type StepKind = (typeof STEP_KINDS)[number]

function kindOf(input: unknown): unknown {
  return typeof input === 'object' && input !== null
    ? (input as Record<string, unknown>).kind
    : undefined
}

function kindMessage(input: unknown): string {
  const kind = kindOf(input)
  if (kind === undefined) return `kind is required: one of ${STEP_KINDS.join(', ')}`
  return `unknown step kind ${JSON.stringify(kind)}: expected one of ${STEP_KINDS.join(', ')}`
}

function branchKindMessage(input: unknown): string {
  const kind = kindOf(input)
  const allowed = PARALLEL_BRANCH_KINDS.join(', ')
  if (typeof kind === 'string' && (STEP_KINDS as readonly string[]).includes(kind)) {
    return `kind "${kind}" is not allowed in a parallel branch: use one of ${allowed}`
  }
  return kind === undefined
    ? `kind is required: one of ${allowed}`
    : `unknown step kind ${JSON.stringify(kind)}: a parallel branch is one of ${allowed}`
}

/** An inline step of a parallel step: no routing, kinds of PARALLEL_BRANCH_KINDS only. */
export const BranchStepSpec = z.discriminatedUnion(
  'kind',
  [
    z.strictObject(setFields),
    z.strictObject(httpFields).refine(httpBodyAllowed, httpBodyRule),
    z.strictObject(llmFields),
    z.strictObject(handlerFields),
    z.strictObject(subgraphFields),
  ],
  { error: (issue) => branchKindMessage(issue.input) },
)
export type BranchStepSpec = z.infer<typeof BranchStepSpec>

/** Runs inline branch steps concurrently. */
export const ParallelStepSpec = z.strictObject({
  kind: z.literal('parallel'),
  branches: z
    .record(StepName, BranchStepSpec)
    .refine((b) => Object.keys(b).length > 0, { error: 'a parallel step needs a branch' }),
  saveAs: StateKey.optional(),
  ...next,
})
export type ParallelStepSpec = z.infer<typeof ParallelStepSpec>

/** Any step of a graph spec, by `kind`. */
export const StepSpec = z.discriminatedUnion(
  'kind',
  [
    SetStepSpec,
    ApprovalStepSpec,
    InputStepSpec,
    HttpStepSpec,
    LlmStepSpec,
    WaitStepSpec,
    SubgraphStepSpec,
    ParallelStepSpec,
    HandlerStepSpec,
    FailStepSpec,
    AgentStepSpec,
  ],
  { error: (issue) => kindMessage(issue.input) },
)
export type StepSpec = z.infer<typeof StepSpec>
