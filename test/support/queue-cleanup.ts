import type { JobQueues } from '@weave/queue'

/**
 * Removes every key of `queues`' four queues from Redis, their meta keys included, so a test
 * file leaves nothing behind in the shared Redis. BullMQ writes a queue's meta key as soon as the
 * queue is used, so a queue a test never touched on purpose may still hold one. Does not close
 * the connections: their owner (a worker, a harness) does.
 */
export async function obliterateQueues(
  queues: Pick<JobQueues, 'runs' | 'timers' | 'webhooks' | 'maintenance'>,
): Promise<void> {
  for (const queue of [queues.runs, queues.timers, queues.webhooks, queues.maintenance]) {
    await queue.obliterate({ force: true })
  }
}
