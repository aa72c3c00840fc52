import type { Database } from '@weave/db'
import {
  createDependencyHealth,
  describeHealthNotice,
  type DependencyHealth,
  type JobQueues,
} from '@weave/queue'
import type { Logger } from 'pino'

/**
 * A worker's own watch of Postgres and Redis, for a worker started without one: probes over its
 * pool and its maintenance queue's connection (which fails fast while Redis is away), and one
 * log line per state change.
 */
export function watchWorkerDependencies(
  database: Database,
  queues: JobQueues,
  log: Logger,
): DependencyHealth {
  return createDependencyHealth({
    probes: {
      postgres: async () => {
        await database.pool.query('select 1')
      },
      // Any command will do: the queues' connections fail at once while Redis is away.
      redis: async () => {
        await queues.maintenance.count()
      },
    },
    notify(notice) {
      const { level, message, fields } = describeHealthNotice(notice)
      log[level](fields, message)
    },
  })
}
