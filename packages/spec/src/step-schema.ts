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

const next = { next: Next.optional() }

function httpBodyAllowed(s: { method: string; body?: string | undefined }): boolean {
  return s.body === undefined || (s.method !== 'GET' && s.method !== 'HEAD')
}
const httpBodyRule = { error: 'GET and HEAD requests have no body', path: ['body'] }

function oneOfDurationUntil(s: { duration?: string | undefined; until?: string | undefined }) {
  return (s.duration === undefined) !== (s.until === undefined)
}
const waitRule = { error: 'a wait step has exactly one of duration or until' }

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
  ],
  { error: (issue) => kindMessage(issue.input) },
)
export type StepSpec = z.infer<typeof StepSpec>
