export {
  createJobQueues,
  DEFAULT_JOB_OPTIONS,
  DELIVERY_JOB_OPTIONS,
  type JobQueueOptions,
  type JobQueues,
  type QueueName,
} from './job-queues.js'
export { redisConnection } from './redis-connection.js'
