export * from './errors.js'
export { toPointer, type SpecProblem } from './problem.js'
export {
  STEP_NAME_PATTERN,
  HANDLER_NAME_PATTERN,
  StepName,
  StateKey,
  GraphName,
  HandlerName,
  Expression,
  Template,
  Duration,
  JsonSchemaDocument,
  Target,
} from './schema-primitives.js'
export { Next, BranchNext, WhenNext } from './routing-schema.js'
export {
  STEP_KINDS,
  PARALLEL_BRANCH_KINDS,
  type StepKind,
  StepSpec,
  BranchStepSpec,
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
  AGENT_APPROVAL_ACTIONS,
  AGENT_TOOL_NAME_PATTERN,
} from './step-schema.js'
export {
  GraphSpec,
  type GraphSpecInput,
  MergePolicyName,
  Limits,
  MAX_STEPS,
  CheckpointRetention,
  RetentionSpec,
} from './graph-spec.js'
export { validateSpec, type ValidationResult } from './validate-spec.js'
export type { ValidateContext, ResolveGraph } from './validate-subgraphs.js'
export { validateRunInput, validateStepInput, validateThreadRunInput } from './validate-input.js'
export { jsonSchemaErrors, validateAgainstSchema } from './json-schema.js'
export {
  approvalMaterialHash,
  canonicalDigest,
  canonicalJson,
  specDigest,
} from './canonical-json.js'
export { parseDuration } from './duration.js'
export {
  compileExpression,
  expressionSyntaxError,
  DEFAULT_EXPRESSION_LIMITS,
  type CompiledExpression,
  type ExpressionLimits,
} from './expression.js'
export { compileTemplate, templateSyntaxErrors, type CompiledTemplate } from './template.js'
export { withoutProtocolKeys, isProtocolKey } from './json-value.js'
export { specTopology, type Topology, type TopologyNode, type TopologyEdge } from './topology.js'
export { compileGraph, type CompiledGraph } from './compile-graph.js'
export { buildMergeConfig } from './merge-config.js'
export type { CompileDeps, HttpDeps, LlmDeps, McpDeps, ApprovalDecisions } from './compile-deps.js'
export { pinMcpTools, type McpPinResult } from './pin-mcp-tools.js'
export { mcpToolDigest, type McpListingDeps, type McpToolListing } from './steps/agent-mcp.js'
export {
  YieldReason,
  ApprovalReason,
  ApprovalsReason,
  InputReason,
  WaitReason,
  readYieldReason,
} from './yield-reasons.js'
export { clientStateProblems, approvalRecordKeys } from './client-state.js'
export {
  defineHandler,
  isHandlerDefinition,
  createHandlerRegistry,
  loadHandlerModules,
  type HandlerDefinition,
  type HandlerFn,
  type HandlerContext,
  type HandlerRegistry,
} from './handlers.js'
export {
  createEgressPolicy,
  type EgressDecision,
  type EgressPolicy,
  type LookupAll,
} from './http/egress.js'
export { createPinnedFetch } from './http/pinned-fetch.js'
export { traceHttpExchange, traceHeadersOf, type TracedExchange } from './http/trace-http.js'
export { isPublicAddress } from './http/ip-address.js'
export { AGENT_EVENT_DATA, type AgentEvent, type AgentEventType } from './agent-events.js'
