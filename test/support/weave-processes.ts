import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mintDevToken } from '@weave/api'
import { migrateDatabase } from '@weave/db'
import { Redis } from 'ioredis'
import pg from 'pg'
import { anyFreePort, ROOT } from './child-processes.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './service-urls.js'
import { waitUntil } from './wait-until.js'

const JWT_SECRET = randomBytes(32).toString('hex')

/** An HTTP answer of the API. */
export interface ApiResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

/** Weave as separate API and worker processes over one fresh database and queue prefix. */
export interface WeaveProcesses {
  baseUrl: string
  databaseUrl: string
  /** The HS256 secret the API verifies tokens with, to craft bad ones. */
  jwtSecret: string
  queuePrefix: string
  /** An owner connection to the test database, for assertions the API cannot make. */
  owner: pg.Pool
  /** A development token of this Weave. */
  token(tenant: string, subject: string, scopes: string): Promise<string>
  /** Calls the API; JSON bodies are sent and parsed. */
  call<T = any>(
    method: string,
    path: string,
    o?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>
  /**
   * Starts one more worker process; returns it so a test can kill it. `env` overrides this
   * Weave's environment for that worker; `pipeOutput` gives the child's stdout and stderr as
   * streams instead of the test's own.
   */
  startWorker(o?: { env?: Record<string, string>; pipeOutput?: boolean }): Promise<ChildProcess>
  /**
   * Checks that no API or worker process died on its own (waiters call it to fail fast).
   * @throws Error naming each process that exited without being told to
   */
  assertRunning(): void
  /** Kills a worker with SIGKILL (no graceful shutdown) and waits until it is gone. */
  killWorker(worker: ChildProcess): Promise<void>
  /**
   * Sends a worker SIGTERM (a graceful shutdown) and waits until it exits, however long its
   * shutdown takes; returns its exit code.
   */
  stopWorker(worker: ChildProcess): Promise<number | null>
  workers: ChildProcess[]
  /** Stops every process, then drops the database and the queue keys, whatever fails first. */
  stop(): Promise<void>
}

/** Options of `startWeave`. */
export interface StartOptions {
  workers?: number
  env?: Record<string, string>
  /**
   * A URL of the Postgres server the test database is created on (its database part is
   * replaced), e.g. a private cluster a test stops; default `WEAVE_TEST_DATABASE_URL`.
   */
  databaseUrl?: string
  /** The Redis the processes use and whose queue keys `stop()` deletes; default `WEAVE_TEST_REDIS_URL`. */
  redisUrl?: string
}

/** Where one test's Weave keeps its data: a database and a queue prefix of its own. */
export interface IsolatedTarget {
  /** The database's URL with the owner login (`WEAVE_MIGRATE_DATABASE_URL`). */
  databaseUrl: string
  /** The same database with the runtime login (`WEAVE_DATABASE_URL`). */
  runtimeUrl: string
  redisUrl: string
  queuePrefix: string
  /** Drops the database and deletes the queue keys. */
  remove(): Promise<void>
}

/**
 * A new database name (not created yet) and BullMQ prefix on the test servers, so whatever
 * starts Weave there shares nothing with other test files.
 */
export function isolatedTarget(
  o: { databaseUrl?: string; redisUrl?: string } = {},
): IsolatedTarget {
  const suffix = randomBytes(5).toString('hex')
  const databaseUrl = withDatabase(o.databaseUrl ?? TEST_DATABASE_URL, `weave_e2e_${suffix}`)
  const redisUrl = o.redisUrl ?? TEST_REDIS_URL
  const queuePrefix = `e2e-${suffix}`
  return {
    databaseUrl,
    runtimeUrl: withLogin(databaseUrl, 'weave_runtime'),
    redisUrl,
    queuePrefix,
    async remove() {
      const results = await Promise.allSettled([
        dropDatabase(databaseUrl),
        deleteQueueKeys(redisUrl, queuePrefix),
      ])
      for (const result of results) if (result.status === 'rejected') throw result.reason
    },
  }
}

/**
 * Starts `weave api` and `weave worker` processes (through the CLI, as a user would) against a
 * new database and a new BullMQ prefix, so test files run in parallel without sharing anything.
 */
export async function startWeave(o: StartOptions = {}): Promise<WeaveProcesses> {
  const target = isolatedTarget(o)
  const { databaseUrl, redisUrl, queuePrefix } = target
  const children: ChildProcess[] = []
  try {
    return await launch(o, databaseUrl, redisUrl, queuePrefix, children)
  } catch (err) {
    // A Weave that never became ready still owns processes, a database and queue keys.
    await Promise.allSettled(children.map(terminate))
    await target.remove().catch(() => undefined)
    throw err
  }
}

async function launch(
  o: StartOptions,
  databaseUrl: string,
  redisUrl: string,
  queuePrefix: string,
  children: ChildProcess[],
): Promise<WeaveProcesses> {
  // The processes connect as the runtime login, as a deployment does: a role that owns nothing
  // and cannot escape row-level security. Migrating creates it when missing.
  const runtimeUrl = withLogin(databaseUrl, 'weave_runtime')
  await migrateDatabase({ connectionString: databaseUrl, runtimeConnectionString: runtimeUrl })
  const port = await anyFreePort()
  const env = {
    ...process.env,
    WEAVE_DATABASE_URL: runtimeUrl,
    WEAVE_MIGRATE_DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    // Expected warnings (a flushed Redis, a stopped database) are asserted, not printed.
    LOG_LEVEL: process.env.WEAVE_TEST_LOG_LEVEL ?? 'error',
    WEAVE_JWT_SECRET: JWT_SECRET,
    WEAVE_JWT_ISSUER: 'weave-e2e',
    WEAVE_QUEUE_PREFIX: queuePrefix,
    WEAVE_RATE_LIMIT_PER_MINUTE: '0',
    // Long enough that a loaded machine never lets a live worker's job look stalled.
    WEAVE_WORKER_LOCK_MS: '15000',
    WEAVE_WORKER_STALLED_INTERVAL_MS: '1000',
    WEAVE_RECONCILE_INTERVAL_MS: '0',
    // A loaded machine may take longer than the default bound to stop; the harness's own
    // SIGKILL (terminate) comes after this, so a slow stop is not reported as a forced one.
    WEAVE_STOP_TIMEOUT_MS: '20000',
    ...o.env,
  }
  const workers: ChildProcess[] = []
  const unexpectedExits: string[] = []
  const spawnCli = (
    command: string,
    extra: { env?: Record<string, string>; pipeOutput?: boolean } = {},
  ) => {
    const args = ['apps/cli/src/main.ts', command]
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      env: { ...env, ...extra.env },
      stdio: [
        'ignore',
        extra.pipeOutput ? 'pipe' : 'inherit',
        extra.pipeOutput ? 'pipe' : 'inherit',
      ],
    })
    children.push(child)
    child.on('exit', (code, signal) => {
      if (!stopping.has(child)) unexpectedExits.push(`weave ${command} (${code ?? signal})`)
    })
    return child
  }
  const baseUrl = `http://127.0.0.1:${port}`
  const api = spawnCli('api')
  // Workers boot (seconds of module loading) while the API does; they need nothing from it.
  for (let i = 0; i < (o.workers ?? 1); i++) workers.push(spawnCli('worker'))
  await waitUntil(
    async () => {
      if (!isAlive(api)) throw new Error(`the API exited early (${api.exitCode ?? api.signalCode})`)
      return (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok === true
    },
    // Loading the API's modules alone takes some 20 s on a busy 2-core machine.
    60_000,
    'the API to be ready',
  )

  const owner = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const weave: WeaveProcesses = {
    baseUrl,
    databaseUrl,
    jwtSecret: JWT_SECRET,
    queuePrefix,
    owner,
    workers,
    token: (tenant, subject, scopes) =>
      mintDevToken({
        secret: JWT_SECRET,
        tenant,
        subject,
        scopes: scopes.split(' ').filter(Boolean),
        audience: 'weave',
        issuer: 'weave-e2e',
        expiresIn: 3600,
        tenantClaim: 'tid',
      }),
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers }
      if (opts.token) headers.authorization = `Bearer ${opts.token}`
      if (opts.body !== undefined) headers['content-type'] = 'application/json'
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
      })
      const text = await res.text()
      let body: unknown = text
      if (/json/.test(res.headers.get('content-type') ?? '') && text !== '') body = JSON.parse(text)
      return { status: res.status, headers: res.headers, body: body as never }
    },
    async startWorker(extra = {}) {
      const worker = spawnCli('worker', extra)
      workers.push(worker)
      return worker
    },
    assertRunning() {
      if (unexpectedExits.length > 0) {
        throw new Error(`exited unexpectedly: ${unexpectedExits.join(', ')}`)
      }
    },
    async killWorker(worker) {
      if (!isAlive(worker)) return
      stopping.add(worker)
      const exited = once(worker, 'exit')
      worker.kill('SIGKILL')
      await exited
    },
    async stopWorker(worker) {
      if (!isAlive(worker)) return worker.exitCode
      stopping.add(worker)
      const exited = once(worker, 'exit')
      worker.kill('SIGTERM')
      const [code] = (await exited) as [number | null]
      return code
    },
    async stop() {
      // Every step runs even when an earlier one fails, so a failed test leaves nothing behind.
      const results = await Promise.allSettled([
        Promise.all(children.map(terminate)).finally(() => owner.end()),
      ])
      const cleanup = await Promise.allSettled([
        dropDatabase(databaseUrl),
        deleteQueueKeys(redisUrl, queuePrefix),
      ])
      for (const result of [...results, ...cleanup]) {
        if (result.status === 'rejected') throw result.reason
      }
    },
  }
  return weave
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null
}

// Children this harness is ending on purpose; any other exit is a crash worth reporting.
const stopping = new WeakSet<ChildProcess>()

async function terminate(child: ChildProcess): Promise<void> {
  if (!isAlive(child)) return
  stopping.add(child)
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  await exited
  clearTimeout(timer)
}

export { waitUntil }

const TERMINAL = ['completed', 'failed', 'cancelled']

/** Polls a run until its status is one of `statuses`; returns the run. */
export async function waitForRun(
  weave: WeaveProcesses,
  token: string,
  runId: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<any> {
  let run: any
  await waitUntil(
    async () => {
      weave.assertRunning()
      run = (await weave.call('GET', `/v1/runs/${runId}`, { token })).body
      if (statuses.includes(run?.status)) return true
      // A finished run never changes again: say so now rather than at the deadline.
      if (TERMINAL.includes(run?.status)) {
        throw new Error(
          `run ${runId} ended ${run.status}, not ${statuses.join(' or ')}: ${JSON.stringify(run.error)}`,
        )
      }
      return false
    },
    timeoutMs,
    () => `run ${runId} to be ${statuses.join(' or ')} (last: ${JSON.stringify(run?.status)})`,
  )
  return run
}

function withLogin(url: string, login: string): string {
  const u = new URL(url)
  u.username = login
  u.password = ''
  return u.toString()
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1)
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, 'postgres') })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}

async function deleteQueueKeys(redisUrl: string, prefix: string): Promise<void> {
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

/** Polls a run until `predicate` holds for it (e.g. waiting on a given step); returns the run. */
export async function waitForRunWhere(
  weave: WeaveProcesses,
  token: string,
  runId: string,
  predicate: (run: any) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<any> {
  let run: any
  await waitUntil(
    async () => {
      weave.assertRunning()
      run = (await weave.call('GET', `/v1/runs/${runId}`, { token })).body
      return predicate(run)
    },
    timeoutMs,
    () =>
      `run ${runId}: ${what} (last: ${JSON.stringify({ status: run?.status, waitingOn: run?.waitingOn, error: run?.error })})`,
  )
  return run
}

/** Polls until the run waits on step `step`; returns the run. */
export function waitForStep(
  weave: WeaveProcesses,
  token: string,
  runId: string,
  step: string,
  timeoutMs = 30_000,
): Promise<any> {
  return waitForRunWhere(
    weave,
    token,
    runId,
    (run) => run?.status === 'waiting' && run?.waitingOn?.step === step,
    `waiting on ${step}`,
    timeoutMs,
  )
}

/** A run's events, oldest first, through `GET /v1/runs/{id}/events?format=json`. */
export async function runEvents(
  weave: WeaveProcesses,
  token: string,
  runId: string,
): Promise<Array<{ id: number; type: string; data: any; at: string }>> {
  const res = await weave.call('GET', `/v1/runs/${runId}/events?format=json`, { token })
  if (res.status !== 200)
    throw new Error(`events of ${runId}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.items
}
