import { once } from 'node:events'
import { Redis } from 'ioredis'
import pg from 'pg'

const CONNECT_TIMEOUT_MS = 2_000

/** One readiness check: resolves when the dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<void>

/** The readiness checks `/readyz` runs, by dependency name. */
export type ReadinessChecks = Readonly<Record<string, ReadinessCheck>>

/** Readiness checks over their own small connections, and how to close them. */
export interface DependencyChecks {
  checks: { postgres: ReadinessCheck; redis: ReadinessCheck }
  close(): Promise<void>
}

/**
 * Checks that Postgres and Redis answer, each over one dedicated connection. Connecting starts
 * here, so only a process that serves traffic creates them, never `buildApp`.
 */
export function createDependencyChecks(options: {
  databaseUrl: string
  redisUrl: string
}): DependencyChecks {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: 1,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  })
  // An idle connection dropped by the server must not crash the process; the next check reports it.
  pool.on('error', () => undefined)
  const redis = new Redis(options.redisUrl, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  })
  redis.on('error', () => undefined)
  return {
    checks: {
      postgres: async () => {
        await pool.query('select 1')
      },
      redis: async () => {
        // Without an offline queue a command fails at once while (re)connecting; wait a little.
        if (redis.status !== 'ready') {
          await once(redis, 'ready', { signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) })
        }
        await redis.ping()
      },
    },
    async close() {
      redis.disconnect()
      await pool.end()
    },
  }
}
