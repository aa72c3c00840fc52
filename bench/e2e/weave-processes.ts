import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import pg from 'pg'
import type { CpuSources } from './cpu.js'
import { freePort } from './ports.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** A fixed development secret: the benchmark's Weave is private and lives for one run. */
export const JWT_SECRET = 'weave-bench-e2e-hs256-secret-for-local-use-only'

/** The issuer the benchmark's Weave expects in tokens. */
export const JWT_ISSUER = 'weave-bench-e2e'

/** Where the benchmark's Weave runs and what it was started with. */
export interface BenchWeave {
  baseUrl: string
  /** The database's name (the URL without credentials is in the report). */
  database: string
  /** Postgres's `server_version`. */
  serverVersion: string
  queuePrefix: string
  /** The API's and workers' pids and the database, to account the CPU they use. */
  cpu: CpuSources
  /** The environment every process got, for the report (secrets removed). */
  settings: Record<string, string>
  /**
   * Fails when an API or worker process exited on its own.
   * @throws Error naming each process that died
   */
  assertRunning(): void
  /** Stops every process, then drops the database and deletes the queue keys. */
  stop(): Promise<void>
}

/** What to start, and against which Postgres and Redis. */
export interface StartOptions {
  /** A Postgres URL whose server gets the new database (its own database name is ignored). */
  serverUrl: string
  redisUrl: string
  workers: number
  workerConcurrency: number
  /** When set, the API and workers write V8 CPU profiles (`--cpu-prof`) there when they stop. */
  cpuProfileDir?: string
  log: (line: string) => void
}

/**
 * Starts Weave as a user runs it: `weave migrate`, then one `weave api` and `workers` ×
 * `weave worker` processes through the CLI, over a new database `weave_bench_e2e_<random>` and a
 * new queue prefix, so nothing is shared with other Weaves on this machine.
 * @throws Error when a process fails to start or the API is not ready within 180 s
 */
export async function startWeave(o: StartOptions): Promise<BenchWeave> {
  const suffix = randomBytes(5).toString('hex')
  const database = `weave_bench_e2e_${suffix}`
  const databaseUrl = withDatabase(o.serverUrl, database)
  const queuePrefix = `bench-e2e-${suffix}`
  const port = await freePort()
  const settings = {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    WEAVE_QUEUE_PREFIX: queuePrefix,
    WEAVE_RATE_LIMIT_PER_MINUTE: '0',
    WEAVE_WORKER_CONCURRENCY: String(o.workerConcurrency),
    WEAVE_JWT_ISSUER: JWT_ISSUER,
  }
  const env = {
    ...process.env,
    ...settings,
    DATABASE_URL: databaseUrl,
    REDIS_URL: o.redisUrl,
    WEAVE_JWT_SECRET: JWT_SECRET,
  }
  const children: ChildProcess[] = []
  const exited: string[] = []
  let isStopping = false
  const spawnCli = (command: string, isService = true): ChildProcess => {
    // Pino writes to stdout; the report owns stdout, so the processes' output goes to stderr.
    const profile =
      o.cpuProfileDir !== undefined && isService
        ? ['--cpu-prof', '--cpu-prof-dir', `${o.cpuProfileDir}/${command}`]
        : []
    const child = spawn(
      process.execPath,
      [...profile, '--import', 'tsx', 'apps/cli/src/main.ts', command],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 2, 2],
      },
    )
    children.push(child)
    child.on('exit', (code, signal) => {
      if (isService && !isStopping) exited.push(`weave ${command} (${code ?? signal})`)
    })
    return child
  }
  const cleanUp = async (): Promise<void> => {
    isStopping = true
    const stopped = await Promise.allSettled(children.map(terminate))
    const cleaned = await Promise.allSettled([
      dropDatabase(o.serverUrl, database),
      deleteQueueKeys(o.redisUrl, queuePrefix),
    ])
    for (const result of [...stopped, ...cleaned]) {
      if (result.status === 'rejected') throw result.reason
    }
  }

  try {
    o.log(`weave migrate (database ${database})`)
    const [code] = (await once(spawnCli('migrate', false), 'exit')) as [number | null]
    if (code !== 0) throw new Error(`weave migrate exited with ${code}`)
    o.log(`weave api on port ${port} and ${o.workers} × weave worker (queue prefix ${queuePrefix})`)
    const api = spawnCli('api')
    const workers = Array.from({ length: o.workers }, () => spawnCli('worker'))
    const baseUrl = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 180_000
    while ((await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok !== true) {
      if (exited.length > 0) throw new Error(`exited while starting: ${exited.join(', ')}`)
      if (Date.now() > deadline) throw new Error('the API was not ready within 180 s')
      await new Promise((r) => setTimeout(r, 200))
    }
    return {
      baseUrl,
      database,
      serverVersion: await serverVersion(databaseUrl),
      queuePrefix,
      cpu: { apiPid: api.pid!, workerPids: workers.map((w) => w.pid!), databaseUrl },
      settings: { ...settings, WEAVE_JWT_SECRET: '(fixed, HS256)' },
      assertRunning() {
        if (exited.length > 0) throw new Error(`exited unexpectedly: ${exited.join(', ')}`)
      },
      stop: cleanUp,
    }
  } catch (err) {
    await cleanUp().catch(() => undefined)
    throw err
  }
}

export async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

async function serverVersion(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version')
    return rows[0]?.server_version ?? 'unknown'
  } finally {
    await client.end()
  }
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}

export async function deleteQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500)
      if (keys.length > 0) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}
