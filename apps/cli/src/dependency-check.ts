import { isDatabaseUnavailable, UNREACHABLE_SOCKET_CODES } from '@weave/db'
import { Redis } from 'ioredis'
import pg from 'pg'

/** How long a start-up check waits for a connection before calling the service unreachable. */
export const DEPENDENCY_CONNECT_TIMEOUT_MS = 5_000

/** What the Postgres check says to set, by which of the two URLs it was given. */
const POSTGRES_ADVICE = {
  migrate: "Set WEAVE_MIGRATE_DATABASE_URL to the tables' owner's URL.",
  runtime: "Set WEAVE_DATABASE_URL to the runtime login's URL.",
} as const

/** The services a command needs before it starts; each one absent is not checked. */
export interface DependencyTargets {
  /** The Postgres URL the command connects with first, and which variable it comes from. */
  postgres?: { url: string; role: keyof typeof POSTGRES_ADVICE }
  /** REDIS_URL. */
  redis?: string
}

/**
 * A service the command needs could not be reached as it started; `weave` prints the message
 * alone (no stack) and exits with status 2, as for a configuration error.
 */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError'
}

/**
 * Connects once to each service in `targets` (at the same time, without retrying) and returns
 * what the first one that cannot be reached means for the user, Postgres before Redis, or null
 * when all answer. Only an unreachable service is reported: a missing database, an unknown login
 * or a refused password is left to the command, which creates the database and login or explains
 * the refusal as it always has (dependency-check.int.test.ts).
 */
export async function findUnreachableDependency(
  targets: DependencyTargets,
  timeoutMs = DEPENDENCY_CONNECT_TIMEOUT_MS,
): Promise<string | null> {
  const [postgres, redis] = await Promise.all([
    targets.postgres
      ? postgresProblem(targets.postgres.url, POSTGRES_ADVICE[targets.postgres.role], timeoutMs)
      : null,
    targets.redis !== undefined ? redisProblem(targets.redis, timeoutMs) : null,
  ])
  return postgres ?? redis
}

/**
 * {@link findUnreachableDependency}, run before a command connects to anything, so a service
 * that is down is one line on stderr instead of a driver's stack or endless reconnect logs.
 * @throws {DependencyUnavailableError} naming the first service that cannot be reached
 */
export async function requireDependencies(targets: DependencyTargets): Promise<void> {
  const problem = await findUnreachableDependency(targets)
  if (problem !== null) throw new DependencyUnavailableError(problem)
}

/**
 * The same message for a Postgres error met after the start-up check passed (the server went
 * away in between): a {@link DependencyUnavailableError} when `err` says Postgres is unreachable,
 * `err` itself otherwise.
 */
export function asPostgresUnavailable(
  err: unknown,
  url: string,
  role: keyof typeof POSTGRES_ADVICE,
): unknown {
  if (!isDatabaseUnavailable(err)) return err
  return new DependencyUnavailableError(
    unreachable('Postgres', url, reasonOf(err), POSTGRES_ADVICE[role]),
    { cause: err },
  )
}

async function postgresProblem(
  url: string,
  advice: string,
  timeoutMs: number,
): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs })
  // A connection that fails after connect() settled must not crash the process.
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.query('select 1')
    return null
  } catch (err) {
    return isDatabaseUnavailable(err) ? unreachable('Postgres', url, reasonOf(err), advice) : null
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function redisProblem(url: string, timeoutMs: number): Promise<string | null> {
  // One attempt: BullMQ's connections retry forever, logging every failure, which is what this
  // check exists to replace with a single line.
  const redis = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  })
  // ioredis rejects connect() with "Connection is closed."; the socket's reason comes as an event.
  let socketError: unknown
  redis.on('error', (err) => {
    socketError ??= err
  })
  try {
    await redis.connect()
    await redis.ping()
    await redis.quit()
    return null
  } catch (err) {
    const code = codeOf(socketError ?? err)
    const down =
      code !== undefined
        ? UNREACHABLE_SOCKET_CODES.has(code)
        : // Closed with no socket error: the server hung up before answering. Any other error
          // (a refused password, TLS) is not about reachability and is left to the command.
          socketError === undefined &&
          err instanceof Error &&
          /Connection is closed/i.test(err.message)
    return down ? unreachable('Redis', url, code ?? 'connection closed', 'Set REDIS_URL.') : null
  } finally {
    // Disconnecting a connection that already ended leaves a timer that holds the process open
    // for two seconds after the message is printed.
    if (redis.status !== 'end') redis.disconnect()
  }
}

function unreachable(service: string, url: string, reason: string, advice: string): string {
  return `cannot reach ${service} at ${withoutPassword(url)} (${reason}): is it running? ${advice}`
}

/** `url` with its password removed, from the user part and from a `password` parameter. */
export function withoutPassword(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    // Configuration parsing accepted it; still print nothing that could hold a secret.
    return '(an unparsable URL)'
  }
  parsed.password = ''
  parsed.searchParams.delete('password')
  return parsed.toString()
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code
  if (typeof code === 'string') return code
  if (err instanceof AggregateError) return codeOf(err.errors[0])
  return undefined
}

/** The error's code (ECONNREFUSED, 57P03, …), else its message: short, and never the URL. */
function reasonOf(err: unknown): string {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = codeOf(e)
    if (code !== undefined) return code
  }
  return err instanceof Error ? err.message : String(err)
}
