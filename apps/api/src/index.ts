export { buildApp, type App, type AppDeps, type RoutePlugin } from './app.js'
export {
  ConfigError,
  JwtAlgorithm,
  loadConfig,
  type Config,
  type JwtConfig,
  type JwtKeySource,
  type MetricsConfig,
  type MetricsExposure,
} from './config.js'
export { createLogger, isPrettyLog, type LogFormat, type LoggerOptions } from './logger.js'
export { scrubUrl } from './http/scrub-url.js'
export {
  createDependencyChecks,
  type DependencyChecks,
  type ReadinessCheck,
  type ReadinessChecks,
} from './dependency-checks.js'
export { authPlugin, type AuthHook, type AuthPluginOptions } from './auth/auth-plugin.js'
export {
  createJwtVerifier,
  type JwtVerifier,
  type JwtVerifierOptions,
} from './auth/jwt-verifier.js'
export { mintDevToken, type DevTokenOptions } from './auth/dev-token.js'
export { Scope, TenantId, type Principal } from './auth/principal.js'
export {
  AppError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnprocessableError,
  type AppErrorOptions,
  type BearerChallenge,
  type ProblemOptions,
} from './http/app-errors.js'
export { errorCodeProblems, type CodeMapping } from './http/error-codes.js'
export { PROBLEM_CONTENT_TYPE } from './http/error-handler.js'
export {
  problemTypes,
  problemTypeUri,
  type FieldError,
  type ProblemBody,
  type ProblemName,
  type ProblemNameFor,
  type ProblemStatus,
} from './http/problems.js'
export { problemResponses, type ProblemResponse } from './http/problem-responses.js'
export { sortOpenApiDocument } from './http/openapi.js'
export {
  registerControlPlaneMetrics,
  type ControlPlaneMetricsDeps,
} from './http/control-plane-metrics.js'
export { createMetricsRegistry } from './http/metrics-registry.js'
export { createRateLimitRedis } from './http/rate-limit-redis.js'
export { jsonPointer } from './http/validation.js'
export { Problem } from './schemas/problem.js'
export { renderOpenApiDocument } from './openapi-document.js'
export { resourceRoutes } from './routes/index.js'
export {
  createApiServices,
  type ApiServiceDeps,
  type ApiServices,
} from './services/api-services.js'
export type { AuditContext, ServiceDeps } from './services/deps.js'
export type { GraphService } from './services/graph-service.js'
export type { RunService } from './services/run-service.js'
export {
  createRunEventStreams,
  type RunEventStreamDeps,
  type RunEventStreams,
} from './services/run-event-stream.js'
export { createRunEventWakeups, type RunEventWakeups } from './services/run-event-wakeups.js'
export type { RunActions } from './services/run-actions.js'
export { toApprovalView, type ApprovalService } from './services/approval-service.js'
export type { AuditService } from './services/audit-service.js'
export type { ApprovalHookService } from './services/approval-hook-service.js'
export type { WebhookService } from './services/webhook-service.js'
export { topologyToMermaid } from './services/mermaid.js'
