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

/** The outcome of every readiness check: undefined when it passed, the error when it failed. */
export type ReadinessResults = Readonly<Record<string, Error | undefined>>

/** One answer of {@link createCachedReadiness}: `isFresh` when this call ran the checks. */
export interface ReadinessAnswer {
  results: Promise<ReadinessResults>
  isFresh: boolean
}

/**
 * Runs the checks at most once per `cacheMs` (concurrent callers share the run in flight) and
 * answers from the last run in between: `/readyz` needs no credentials, so its rate must not set
 * the rate of queries to Postgres and Redis (health.test.ts).
 */
export function createCachedReadiness(
  checks: ReadinessChecks,
  options: { timeoutMs: number; cacheMs: number; now?: () => number },
): () => ReadinessAnswer {
  const now = options.now ?? Date.now
  let last: { at: number; results: Promise<ReadinessResults> } | undefined
  return () => {
    if (last && now() - last.at < options.cacheMs) return { results: last.results, isFresh: false }
    last = { at: now(), results: runChecks(checks, options.timeoutMs) }
    return { results: last.results, isFresh: true }
  }
}

async function runChecks(checks: ReadinessChecks, timeoutMs: number): Promise<ReadinessResults> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check(), timeoutMs)
        return [name, undefined] as const
      } catch (error) {
        return [name, error instanceof Error ? error : new Error(String(error))] as const
      }
    }),
  )
  return Object.fromEntries(entries)
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  try {
    await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
