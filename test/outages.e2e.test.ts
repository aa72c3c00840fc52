import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { mintDevToken } from '@weave/api'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { expectJson, expectProblem } from './support/expect-http.js'
import { faultSuiteOptions } from './support/fault-servers.js'
import { startPrivatePostgres, type PrivatePostgres } from './support/private-postgres.js'
import { freePort, startPrivateRedis, type PrivateRedis } from './support/private-redis.js'
import { waitUntil } from './support/weave-processes.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const JWT_SECRET = randomBytes(32).toString('hex')
const SCOPES = 'graphs:read graphs:write runs:read runs:write'
// Low, so a stop that waited for a dependency would end as a forced exit (status 3) soon.
const STOP_TIMEOUT_MS = 5_000
// Far past the bound: a process still running by then ignored it.
const EXIT_DEADLINE_MS = 30_000
// How long each outage lasts: long enough for a process that logged every reconnect to log dozens.
const OUTAGE_MS = 5_000
const GRAPH = {
  name: 'note',
  spec: { entry: 'write', steps: { write: { kind: 'set', values: { noted: 'true' } } } },
}

/** One log line of the process, parsed. */
interface LogLine {
  level: number
  msg: string
  dependency?: string
  [field: string]: unknown
}

/** `weave start` as `npm start` runs it, with its output gathered line by line. */
interface StartedWeave {
  baseUrl: string
  child: ChildProcess
  lines: LogLine[]
  /** Non-JSON output (a stack, a library printing on its own). */
  stray: string[]
  call(method: string, path: string, body?: unknown): Promise<Response>
}

/** The command line of `npm start`, from package.json, with this Node as `node`. */
function npmStartCommand(): string[] {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
    scripts: { start: string }
  }
  const [node, ...args] = pkg.scripts.start.split(/\s+/)
  expect(node).toBe('node')
  return args
}

const WARN = 40

const privateServers = faultSuiteOptions(['pg_createcluster', 'redis-server'])

describe('Postgres or Redis going away under a running `weave start`', privateServers, () => {
  let postgres: PrivatePostgres
  let redis: PrivateRedis
  let shutdownRedisOnExit: () => void = () => undefined

  beforeAll(async () => {
    // Stopping the shared servers would break every other test file running beside this one.
    postgres = await startPrivatePostgres({ stem: 'weave-outages' })
    redis = await startPrivateRedis()
    const url = redis.url
    shutdownRedisOnExit = () => {
      spawnSync('redis-cli', ['-u', url, 'shutdown', 'nosave'], { stdio: 'ignore' })
    }
    process.once('exit', shutdownRedisOnExit)
  })
  afterAll(async () => {
    try {
      await redis?.stop()
      process.removeListener('exit', shutdownRedisOnExit)
    } finally {
      await postgres?.remove()
    }
  })

  /** Starts Weave on the private servers, on a database of its own; killed when the test ends. */
  async function startWeave(): Promise<StartedWeave> {
    const port = await freePort()
    const database = `weave_outage_${randomBytes(4).toString('hex')}`
    const owner = new URL(postgres.url)
    owner.pathname = `/${database}`
    const runtime = new URL(owner)
    runtime.username = 'weave_runtime'
    const child = spawn(process.execPath, npmStartCommand(), {
      cwd: ROOT,
      env: {
        ...process.env,
        WEAVE_MIGRATE_DATABASE_URL: owner.toString(),
        WEAVE_DATABASE_URL: runtime.toString(),
        REDIS_URL: redis.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        WEAVE_JWT_SECRET: JWT_SECRET,
        WEAVE_JWT_ISSUER: 'weave-outages',
        WEAVE_RATE_LIMIT_PER_MINUTE: '0',
        WEAVE_STOP_TIMEOUT_MS: String(STOP_TIMEOUT_MS),
        // A run accepted while Redis is away gets its job from the reconciler soon after.
        WEAVE_RECONCILE_INTERVAL_MS: '1000',
        WEAVE_RECONCILE_QUIET_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    onTestFinished(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit')
        child.kill('SIGKILL')
        await exited
      }
      // A test that failed mid-outage left a server down; the database is dropped through it.
      await Promise.all([postgres.start(), redis.start()])
      const admin = new pg.Client({ connectionString: postgres.url })
      await admin.connect()
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
      } finally {
        await admin.end()
      }
    })
    const lines: LogLine[] = []
    const stray: string[] = []
    const collect = (stream: NodeJS.ReadableStream) => {
      let pending = ''
      stream.on('data', (chunk: Buffer) => {
        pending += chunk.toString()
        const complete = pending.split('\n')
        pending = complete.pop()!
        for (const text of complete) {
          if (text.trim() === '') continue
          try {
            lines.push(JSON.parse(text) as LogLine)
          } catch {
            stray.push(text)
          }
        }
      })
    }
    collect(child.stdout)
    collect(child.stderr)
    const baseUrl = `http://127.0.0.1:${port}`
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`weave start exited: ${stray.join('\n')}`)
        return (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.ok === true
      },
      60_000,
      'weave start to be ready',
    )
    const token = await mintDevToken({
      secret: JWT_SECRET,
      tenant: 'outages',
      subject: 'ops',
      scopes: SCOPES.split(' '),
      issuer: 'weave-outages',
      audience: 'weave',
      expiresIn: 3600,
    })
    return {
      baseUrl,
      child,
      lines,
      stray,
      call: (method, path, body) =>
        fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
    }
  }

  async function answer(res: Response) {
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text === '' ? text : JSON.parse(text) }
  }

  /** Waits until the process has logged `msg` about `dependency` `count` times in all. */
  async function waitForLine(weave: StartedWeave, msg: string, dependency: string, count = 1) {
    const matching = () => weave.lines.filter((l) => l.msg === msg && l.dependency === dependency)
    await waitUntil(
      () => matching().length >= count,
      30_000,
      () => `"${msg}" about ${dependency} (lines: ${JSON.stringify(weave.lines.slice(-5))})`,
    )
  }

  /** Lets the outage last OUTAGE_MS from `since` (a wait, asserted on nothing). */
  async function lastUntil(since: number) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, since + OUTAGE_MS - Date.now())))
  }

  async function expectNotReady(weave: StartedWeave, dependency: string) {
    const ready = await answer(await fetch(`${weave.baseUrl}/readyz`))
    expectProblem(ready, 503)
    expect(ready.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
    expect(ready.body.detail).toContain(dependency)
    expect(ready.body.checks[dependency]).toBe('failed')
  }

  /** Sends SIGINT and waits for the exit; returns its status. */
  async function interrupt(weave: StartedWeave): Promise<number | null> {
    const exited = once(weave.child, 'exit')
    weave.child.kill('SIGINT')
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`still running ${EXIT_DEADLINE_MS} ms after SIGINT`)),
        EXIT_DEADLINE_MS,
      )
    })
    try {
      const [code] = (await Promise.race([exited, deadline])) as [number | null]
      return code
    } finally {
      clearTimeout(timer)
    }
  }

  it('tells a Redis outage once each way, keeps answering, and stops on the first SIGINT', async () => {
    const weave = await startWeave()
    expect((await weave.call('POST', '/v1/graphs', GRAPH)).status).toBe(201)
    const before = weave.lines.length

    const outageStarted = Date.now()
    await redis.stop()
    await waitForLine(weave, 'dependency unreachable', 'redis')
    await expectNotReady(weave, 'redis')
    // The run is committed in Postgres: it is accepted, its job left to the reconciler.
    const started = expectJson<{ id: string }>(
      await answer(await weave.call('POST', '/v1/runs', { graph: 'note', input: {} })),
      202,
    )
    await lastUntil(outageStarted)
    await redis.start()
    await waitForLine(weave, 'dependency reachable again', 'redis')

    const during = weave.lines.slice(before)
    const aboutRedis = during.filter((l) => l.dependency === 'redis').map((l) => l.msg)
    expect(aboutRedis).toEqual(['dependency unreachable', 'dependency reachable again'])
    // Besides the outage, one warning for the run whose job the reconciler adds, and one per job
    // the restarted (empty) Redis lost while a worker held it: a few lines, not one per retry.
    const warnings = during.filter((l) => l.level >= WARN).map((l) => l.msg)
    const deferred = 'job enqueue failed; the reconciler will enqueue it'
    const lostJob = 'a job vanished from Redis'
    expect(warnings.filter((msg) => msg === 'dependency unreachable')).toHaveLength(1)
    expect(warnings.filter((msg) => msg === deferred)).toHaveLength(1)
    expect(warnings.filter((msg) => msg !== lostJob).sort()).toEqual(
      ['dependency unreachable', deferred].sort(),
    )
    expect(warnings.length).toBeLessThanOrEqual(6)
    expect(weave.stray).toEqual([])
    await waitUntil(
      async () => {
        const run = await answer(await weave.call('GET', `/v1/runs/${started.id}`))
        return run.body.status === 'completed'
      },
      30_000,
      'the run accepted during the outage to complete',
    )

    await redis.stop()
    await waitForLine(weave, 'dependency unreachable', 'redis', 2)
    expect(await interrupt(weave)).toBe(0)
    expect(weave.lines.at(-1)?.msg).toBe('worker stopped')
    expect(weave.stray).toEqual([])
  })

  it('answers 503 with Retry-After while Postgres is away, tells it once each way, and stops on the first SIGINT', async () => {
    const weave = await startWeave()
    expect((await weave.call('POST', '/v1/graphs', GRAPH)).status).toBe(201)
    const before = weave.lines.length

    const outageStarted = Date.now()
    await postgres.stop()
    const answers = {
      list: await answer(await weave.call('GET', '/v1/runs')),
      start: await answer(await weave.call('POST', '/v1/runs', { graph: 'note', input: {} })),
    }
    for (const [what, res] of Object.entries(answers)) {
      expectProblem(res, 503)
      expect(res.headers.get('retry-after'), what).toMatch(/^[1-9]\d*$/)
    }
    await waitForLine(weave, 'dependency unreachable', 'postgres')
    await expectNotReady(weave, 'postgres')
    await lastUntil(outageStarted)
    await postgres.start()
    await waitForLine(weave, 'dependency reachable again', 'postgres')

    const during = weave.lines.slice(before)
    const aboutPostgres = during.filter((l) => l.dependency === 'postgres').map((l) => l.msg)
    expect(aboutPostgres).toEqual(['dependency unreachable', 'dependency reachable again'])
    expect(during.filter((l) => l.level >= WARN).map((l) => l.msg)).toEqual([
      'dependency unreachable',
    ])
    expect(weave.stray).toEqual([])
    expect((await weave.call('GET', '/v1/runs')).status).toBe(200)

    await postgres.stop()
    expect((await weave.call('GET', '/v1/runs')).status).toBe(503)
    await waitForLine(weave, 'dependency unreachable', 'postgres', 2)
    expect(await interrupt(weave)).toBe(0)
    expect(weave.lines.at(-1)?.msg).toBe('worker stopped')
  })
})
