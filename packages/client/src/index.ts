export {
  createWeaveClient,
  type ApprovalPage,
  type Approval,
  type AuditPage,
  type AuditVerification,
  type CallOptions,
  type DecisionBody,
  type Graph,
  type GraphPage,
  type GraphSpec,
  type GraphVersion,
  type ListApprovalsQuery,
  type ListAuditQuery,
  type ListRunsQuery,
  type Problem,
  type RegisteredGraph,
  type Run,
  type RunEvent,
  type RunEventType,
  type RunEventsOptions,
  type RunPage,
  type RunStatus,
  type RunSummary,
  type WaitOptions,
  type WeaveClient,
  type WeaveClientOptions,
} from './client.js'
export type { components, operations, paths } from './openapi-types.js'
export { WeaveProblemError, retryAfterSeconds, type FieldError } from './problem.js'
export { sseMessages, type SseMessage } from './sse.js'
export {
  createTransport,
  type RetryOptions,
  type TokenSource,
  type Transport,
} from './transport.js'
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookHeaders,
  type WebhookPayload,
} from './webhooks.js'
