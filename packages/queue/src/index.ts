export {
  createJobQueues,
  DEFAULT_JOB_OPTIONS,
  DELIVERY_JOB_OPTIONS,
  QUEUE_COMMAND_TIMEOUT_MS,
  type JobQueueOptions,
  type JobQueues,
} from './job-queues.js'
export { redisConnection } from './redis-connection.js'
export { readTraceContext, TRACE_FIELD, withTraceContext } from './job-trace.js'
export {
  createDependencyHealth,
  describeHealthNotice,
  type Dependency,
  type DependencyHealth,
  type DependencyHealthOptions,
  type HealthNotice,
  type HealthProbe,
} from './dependency-health.js'
export { dependenciesBehind, isRedisUnavailable } from './outage-errors.js'
export {
  cronProblem,
  latestTickBetween,
  nextIntervalTick,
  timeZoneProblem,
} from './schedule-timing.js'
