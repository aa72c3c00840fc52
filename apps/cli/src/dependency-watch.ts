import { createDependencyChecks, type ReadinessChecks } from '@weave/api'
import { createDependencyHealth, describeHealthNotice, type DependencyHealth } from '@weave/queue'
import type { Logger } from 'pino'

/** One process's view of Postgres and Redis: what its connections report, and its probes. */
export interface DependencyWatch {
  /** Where every connection of the process reports trouble; it logs state changes only. */
  health: DependencyHealth
  /** The probes, also what `/readyz` runs. */
  checks: ReadinessChecks
  close(): Promise<void>
}

/**
 * Watches Postgres and Redis for one process (the API and a worker in one process share it, so
 * an outage is told once), probing each over a small connection of its own.
 */
export function watchDependencies(
  urls: { databaseUrl: string; redisUrl: string },
  log: Logger,
): DependencyWatch {
  const dependencies = createDependencyChecks(urls)
  const health = createDependencyHealth({
    probes: dependencies.checks,
    notify(notice) {
      const { level, message, fields } = describeHealthNotice(notice)
      log[level](fields, message)
    },
  })
  return {
    health,
    checks: dependencies.checks,
    async close() {
      health.close()
      await dependencies.close()
    },
  }
}
