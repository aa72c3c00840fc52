export {
  createJobQueues,
  DEFAULT_JOB_OPTIONS,
  DELIVERY_JOB_OPTIONS,
  type JobQueueOptions,
  type JobQueues,
} from './job-queues.js'
export { redisConnection } from './redis-connection.js'
